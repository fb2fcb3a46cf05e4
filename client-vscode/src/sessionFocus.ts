/**
 * The focused session, the one every view and request acts on: remembered in
 * the workspace's state across reloads, added to requests that name none, and
 * checked against each new server (kept when the server knows it, else a new
 * one is opened), so the chat goes on where it was after a reload or restart.
 */
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { Method, Requests } from './protocol';

/** workspaceState key of the focused session (restored after a reload). */
const FOCUSED_SESSION_KEY = 'cairn.focusedSession';

export class SessionFocus implements vscode.Disposable {
  private focused: string | undefined;
  /** Fired when the focused session changes. */
  readonly onDidChange = new vscode.EventEmitter<string | undefined>();

  constructor(
    private readonly memento: vscode.Memento,
    private readonly log: (line: string) => void,
  ) {
    this.focused = memento.get<string>(FOCUSED_SESSION_KEY);
  }

  get id(): string | undefined {
    return this.focused;
  }

  set(sessionId: string | undefined): void {
    if (sessionId !== this.focused) {
      this.focused = sessionId;
      void this.memento.update(FOCUSED_SESSION_KEY, sessionId);
      this.onDidChange.fire(sessionId);
    }
  }

  /** `params` with the focused session's id, unless they carry one (or none is focused). */
  withSession(params: object): object {
    if (this.focused === undefined || 'sessionId' in params) {
      return params;
    }
    return { ...params, sessionId: this.focused };
  }

  /**
   * Keeps the focused session when the server knows it (it is on disk, or this
   * server made it), else focuses a new one: after a reload the chat goes on
   * where it was; a session never written (an empty new chat) does not outlive
   * its server.
   */
  async ensure(client: LanguageClient | undefined): Promise<void> {
    if (!client) {
      return;
    }
    try {
      if (this.focused) {
        await client.sendRequest(Method.goalTree, { sessionId: this.focused });
        return;
      }
    } catch {
      this.log(`Cairn: session ${this.focused} is gone; starting a new chat.`);
    }
    try {
      const result: Requests[typeof Method.newSession]['result'] = await client.sendRequest(Method.newSession, {});
      this.set(result.sessionId);
    } catch (error) {
      this.log(`Cairn: could not open a session: ${String(error)}`);
    }
  }

  dispose(): void {
    this.onDidChange.dispose();
  }
}
