/**
 * Review mode (`cairn.edits.review`): the agent's edits wait for the user.
 *
 * Each file the agent edits opens as a diff (its text before, the agent's
 * text after; both read-only virtual documents) with Accept and Reject in the
 * diff editor's title and in the chat. Accept applies and saves the edit;
 * Reject answers the server `applied: false` (the agent is told the user
 * rejected it) and the file is unchanged. An edit still waiting when its turn
 * ends (stopped, or the server gone) is rejected.
 */
import * as path from 'path';
import * as vscode from 'vscode';
import { FileChange } from './applyEdit';
import { CONFIG_REVIEW_EDITS, CONFIG_SECTION } from './settingKeys';
import { VirtualDocuments } from './virtualDocs';
import { ReviewState } from './webview/messages';

const REVIEW_FOLDER = 'review';
const REVIEWING_CONTEXT = 'cairn.reviewing';

/** What the chat shows about one held edit. */
export interface ReviewEntry {
  id: string;
  path: string;
  added: number;
  removed: number;
  state: ReviewState;
}

interface Pending {
  entry: ReviewEntry;
  before: vscode.Uri;
  after: vscode.Uri;
  resolve: (accept: boolean) => void;
}

/** Lines added and removed between two texts (the changed middle, common head and tail kept). */
export function lineCounts(before: string, after: string): { added: number; removed: number } {
  const a = before ? before.split('\n') : [];
  const b = after ? after.split('\n') : [];
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { added: b.length - head - tail, removed: a.length - head - tail };
}

export class EditReviews implements vscode.Disposable {
  private readonly pending = new Map<string, Pending>();
  private next = 0;
  private readonly changed = new vscode.EventEmitter<ReviewEntry>();
  /** Fired when a review is opened or decided (the chat shows it). */
  readonly onDidChange = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly docs: VirtualDocuments) {
    this.subscriptions = [
      this.changed,
      vscode.commands.registerCommand('cairn.review.accept', (uri?: vscode.Uri) => this.decideByUri(uri, true)),
      vscode.commands.registerCommand('cairn.review.reject', (uri?: vscode.Uri) => this.decideByUri(uri, false)),
    ];
  }

  dispose(): void {
    this.expireAll();
    this.subscriptions.forEach((s) => s.dispose());
  }

  get enabled(): boolean {
    return vscode.workspace.getConfiguration(CONFIG_SECTION).get<boolean>(CONFIG_REVIEW_EDITS) === true;
  }

  /** The reviews waiting for the user (the tests read them). */
  waiting(): ReviewEntry[] {
    return [...this.pending.values()].map((p) => p.entry);
  }

  /** The `EditReviewer` of applyEdit.ts: true (apply) when every file is accepted. */
  async review(changes: FileChange[]): Promise<boolean> {
    if (!this.enabled) return true;
    for (const change of changes) {
      if (!(await this.reviewOne(change))) return false;
    }
    return true;
  }

  private reviewOne(change: FileChange): Promise<boolean> {
    const id = `review-${++this.next}`;
    const rel = vscode.workspace.asRelativePath(change.uri);
    const name = path.basename(change.uri.fsPath);
    const before = this.docs.set(VirtualDocuments.uri(`${REVIEW_FOLDER}/${id}/before`, name), change.before);
    const after = this.docs.set(VirtualDocuments.uri(`${REVIEW_FOLDER}/${id}/after`, name), change.after);
    const entry: ReviewEntry = { id, path: rel, ...lineCounts(change.before, change.after), state: 'pending' };
    return new Promise<boolean>((resolve) => {
      this.pending.set(id, { entry, before, after, resolve });
      this.changed.fire(entry);
      void vscode.commands.executeCommand('setContext', REVIEWING_CONTEXT, true);
      void this.open(id);
    });
  }

  /** Shows the diff of a waiting review. */
  async open(id: string): Promise<void> {
    const item = this.pending.get(id);
    if (!item) return;
    const title = `${item.entry.path}: Cairn's edit (${item.entry.state === 'pending' ? 'review' : item.entry.state})`;
    await vscode.commands.executeCommand('vscode.diff', item.before, item.after, title, { preview: false });
  }

  /** Accept (apply and save) or reject (the file stays as it is) a waiting edit. */
  decide(id: string, accept: boolean): boolean {
    const item = this.pending.get(id);
    if (!item) return false;
    this.pending.delete(id);
    item.entry = { ...item.entry, state: accept ? 'accepted' : 'rejected' };
    this.changed.fire(item.entry);
    item.resolve(accept);
    void this.closeDiff(item);
    if (this.pending.size === 0) void vscode.commands.executeCommand('setContext', REVIEWING_CONTEXT, false);
    return true;
  }

  /** Rejects every waiting edit (its turn ended). */
  expireAll(): void {
    for (const [id, item] of [...this.pending]) {
      this.pending.delete(id);
      item.entry = { ...item.entry, state: 'expired' };
      this.changed.fire(item.entry);
      item.resolve(false);
      void this.closeDiff(item);
    }
    void vscode.commands.executeCommand('setContext', REVIEWING_CONTEXT, false);
  }

  private decideByUri(uri: vscode.Uri | undefined, accept: boolean): boolean {
    const target = uri?.toString();
    const item = [...this.pending.values()].find(
      (p) => target === undefined || p.after.toString() === target || p.before.toString() === target,
    );
    return item ? this.decide(item.entry.id, accept) : false;
  }

  private async closeDiff(item: Pending): Promise<void> {
    const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs);
    const open = tabs.filter(
      (tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === item.after.toString(),
    );
    if (open.length > 0) await vscode.window.tabGroups.close(open);
  }
}
