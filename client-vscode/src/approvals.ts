/**
 * Inline approvals: the server's `cairn/approval` requests, shown in the chat
 * with the exact command and Run / Always allow in this session / Reject.
 * The request is answered when the user clicks; one still waiting when its
 * turn ends (stopped, or failed) is answered `reject` and shown as moot.
 */
import * as vscode from 'vscode';
import { ApprovalDecision, ApprovalParams, ApprovalResult } from './protocol';
import { ApprovalState } from './webview/messages';

export interface ApprovalEntry {
  id: string;
  request: ApprovalParams;
  state: ApprovalState;
}

export class Approvals implements vscode.Disposable {
  private readonly waitingFor = new Map<string, { entry: ApprovalEntry; resolve: (r: ApprovalResult) => void }>();
  private next = 0;
  private readonly changed = new vscode.EventEmitter<ApprovalEntry>();
  /** Fired when an approval is asked or answered (the chat shows it). */
  readonly onDidChange = this.changed.event;

  dispose(): void {
    this.expire();
    this.changed.dispose();
  }

  /** The approvals waiting for the user (the tests read them). */
  waiting(): ApprovalEntry[] {
    return [...this.waitingFor.values()].map((w) => w.entry);
  }

  /** The `cairn/approval` handler: resolves once the user answers. */
  ask(request: ApprovalParams): Promise<ApprovalResult> {
    const id = `approval-${++this.next}`;
    const entry: ApprovalEntry = { id, request, state: 'pending' };
    return new Promise((resolve) => {
      this.waitingFor.set(id, { entry, resolve });
      this.changed.fire(entry);
    });
  }

  answer(id: string, decision: ApprovalDecision): boolean {
    const waiting = this.waitingFor.get(id);
    if (!waiting) return false;
    this.waitingFor.delete(id);
    this.changed.fire({ ...waiting.entry, state: decision });
    waiting.resolve({ decision });
    return true;
  }

  /** Rejects what still waits (of `turnId`, or all): its turn is over. */
  expire(turnId?: string): void {
    for (const [id, waiting] of [...this.waitingFor]) {
      if (turnId !== undefined && waiting.entry.request.turnId !== turnId) continue;
      this.waitingFor.delete(id);
      this.changed.fire({ ...waiting.entry, state: 'expired' });
      waiting.resolve({ decision: 'reject' });
    }
  }
}
