/**
 * The Sessions side panel: `cairn/sessions` as a list with Open (focuses it:
 * the chat, the goals, the meter and "Fix with Cairn" follow), Fork
 * (`cairn/fork`, the fork is focused) and Delete (`cairn/deleteSession`,
 * after a confirmation; deleting the focused one starts a new chat).
 */
import * as vscode from 'vscode';
import { CairnClient } from './client';
import { Command, View } from './constants';
import { errorText } from './errorText';
import { Method, SessionInfo } from './protocol';

/** Untitled sessions are shown by their id's time and random part (ids start with the date). */
const UNTITLED_ID_CHARS = -13;

/** A session's name for lists and messages: its title, else "untitled (<end of its id>)". */
export function sessionName(session: { title: string; sessionId: string }): string {
  return session.title || `untitled (${session.sessionId.slice(UNTITLED_ID_CHARS)})`;
}

/** The id of the focused session (the server's active one before any is focused). */
export async function resolveSessionId(client: CairnClient): Promise<string> {
  if (client.sessionId !== undefined) {
    return client.sessionId;
  }
  const view = await client.request(Method.goalTree, {});
  return view.sessionId;
}

export class SessionsProvider implements vscode.TreeDataProvider<SessionInfo>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[];
  /** The sessions shown, newest first (the tests read them). */
  sessions: SessionInfo[] = [];

  constructor(private readonly client: CairnClient) {
    this.subscriptions = [
      vscode.window.registerTreeDataProvider(View.sessions, this),
      client.onDidStart.event(() => void this.refresh()),
      client.onDidChangeSession.event(() => void this.refresh()),
      client.onTurnEvent.event((event) => {
        if (event.kind === 'end') {
          void this.refresh();
        }
      }),
      vscode.commands.registerCommand(Command.sessionsRefresh, () => this.refresh()),
      vscode.commands.registerCommand(Command.sessionOpen, (s?: SessionInfo) => this.open(s)),
      vscode.commands.registerCommand(Command.sessionFork, (s?: SessionInfo) => this.fork(s)),
      vscode.commands.registerCommand(Command.sessionDelete, (s?: SessionInfo, confirmed?: boolean) =>
        this.delete(s, confirmed === true),
      ),
      vscode.commands.registerCommand(Command.forkSession, () => this.fork(undefined)),
    ];
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
    this.changed.dispose();
  }

  getTreeItem(session: SessionInfo): vscode.TreeItem {
    const active = session.sessionId === this.client.sessionId;
    const item = new vscode.TreeItem(sessionName(session));
    item.id = session.sessionId;
    const turns = `${session.turns} turn${session.turns === 1 ? '' : 's'}`;
    item.description = [active ? 'open' : '', turns, session.parentId ? 'fork' : ''].filter(Boolean).join(' · ');
    item.iconPath = new vscode.ThemeIcon(
      session.parentId ? 'repo-forked' : 'comment-discussion',
      active ? new vscode.ThemeColor('charts.yellow') : undefined,
    );
    item.tooltip = [
      `Session ${session.sessionId}`,
      session.parentId ? `Forked from ${session.parentId}` : '',
      `Created ${session.createdAt}`,
      `Updated ${session.updatedAt}`,
      turns,
    ]
      .filter(Boolean)
      .join('\n');
    item.contextValue = active ? 'session.active' : 'session';
    item.command = { command: Command.sessionOpen, title: 'Open Session', arguments: [session] };
    return item;
  }

  getChildren(session?: SessionInfo): SessionInfo[] {
    return session ? [] : this.sessions;
  }

  async refresh(): Promise<SessionInfo[]> {
    try {
      const result = await this.client.requestRaw(Method.sessions, {});
      this.sessions = result.sessions;
    } catch {
      this.sessions = [];
    }
    this.changed.fire(undefined);
    return this.sessions;
  }

  private open(session: SessionInfo | undefined): void {
    if (session) {
      this.client.setSession(session.sessionId);
      this.changed.fire(undefined);
    }
  }

  /** Forks the given session (or the active one) and opens the fork. */
  private async fork(session: SessionInfo | undefined): Promise<string | undefined> {
    try {
      const sessionId = session?.sessionId ?? (await resolveSessionId(this.client));
      const result = await this.client.requestRaw(Method.fork, { sessionId });
      this.client.setSession(result.sessionId);
      await this.refresh();
      const parent = this.sessions.find((s) => s.sessionId === sessionId);
      const name = parent ? `"${sessionName(parent)}"` : 'the session';
      void vscode.window.setStatusBarMessage(`Cairn: forked ${name}; the fork is open in the chat.`, 5000);
      return result.sessionId;
    } catch (error) {
      void vscode.window.showErrorMessage(errorText(error));
      return undefined;
    }
  }

  private async delete(session: SessionInfo | undefined, confirmed: boolean): Promise<boolean> {
    if (!session) {
      return false;
    }
    const label = sessionName(session);
    const ok =
      confirmed ||
      (await vscode.window.showWarningMessage(
        `Delete the Cairn session "${label}"? Its messages, manifests and artifacts are removed.`,
        { modal: true },
        'Delete',
      )) === 'Delete';
    if (!ok) {
      return false;
    }
    try {
      await this.client.requestRaw(Method.deleteSession, { sessionId: session.sessionId });
      if (this.client.sessionId === session.sessionId) {
        await this.client.newSession();
      }
      await this.refresh();
      return true;
    } catch (error) {
      void vscode.window.showErrorMessage(errorText(error));
      return false;
    }
  }
}
