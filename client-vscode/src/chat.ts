/**
 * The Cairn Chat view (a WebviewView) of the focused session: a prompt with a
 * mode and `@file` completion; Send runs `cairn/turn`, Stop cancels it
 * (`$/cancelRequest`); the turn's events, compactions, inline approvals and
 * edit reviews are shown as they arrive, and every ended turn is a
 * checkpoint (restore its files, fork the conversation before it, or both).
 * The rows are rebuilt from the server's trace (`cairn/transcript`) when the
 * focused session changes or the window reloads. The page's script is
 * src/webview/chat.ts; the messages between the two are in
 * src/webview/messages.ts.
 */
import { randomBytes } from 'crypto';
import * as path from 'path';
import * as vscode from 'vscode';
import { Approvals } from './approvals';
import { addEntry, transcriptEntries } from './chatTranscript';
import { CairnClient } from './client';
import { Command, FILE_COMPLETION_EXCLUDE, MAX_FILE_COMPLETIONS, View } from './constants';
import { toWireDiagnostic } from './diagnostics';
import { errorText } from './errorText';
import { EditLabel, MODES, Method, Mode, ServerCommand, TurnEvent, TurnResult } from './protocol';
import { EditReviews, ReviewEntry } from './review';
import { VirtualDocuments } from './virtualDocs';
import { Banner, ChatEntry, FromWebview, Handlers, ToWebview, dispatch } from './webview/messages';

export type { ChatEntry } from './webview/messages';

/** JSON-RPC `RequestCancelled`: the server stopped the turn at our `$/cancelRequest`. */
const REQUEST_CANCELLED = -32800;
const NONCE_BYTES = 18;
/** The webview's script (bundled by esbuild from src/webview/) and its styles (media/). */
const WEBVIEW_DIR = ['dist', 'webview'];
const WEBVIEW_SCRIPT = 'chat.js';
const MEDIA_DIR = 'media';
const WEBVIEW_STYLE = 'chat.css';
const DIFF_FOLDER = 'diffs';
/** Links the chat opens outside VS Code. */
const EXTERNAL_LINK = /^(https?|mailto):/i;

/** The `@path` mentions of a message (the candidates; existence is checked separately). */
export function mentions(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
    found.add(match[1].replace(/[.,;:!?)\]]+$/, ''));
  }
  return [...found].filter(Boolean);
}

/** What the chat needs from the rest of the extension. */
export interface ChatServices {
  docs: VirtualDocuments;
  reviews: EditReviews;
  approvals: Approvals;
  /** The banner above the prompt (no server, no model…), re-read on every state change. */
  banner(): Promise<Banner>;
}

export class ChatPanel implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  /** Fired when the view is shown for the first time (a deferred server then starts: startupGate.ts). */
  readonly onDidShow = new vscode.EventEmitter<void>();
  private entries: ChatEntry[] = [];
  private title = '';
  private running: vscode.CancellationTokenSource | undefined;
  /** The running turn of the focused session and its tool call in progress (from its events). */
  private turnId: string | undefined;
  private callId: string | undefined;
  /** Tool call → its edit's before/after documents (a side-by-side diff can be shown). */
  private readonly diffs = new Map<string, { before: vscode.Uri; after: vscode.Uri; name: string }>();
  private loading: Promise<void> = Promise.resolve();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly client: CairnClient,
    private readonly services: ChatServices,
  ) {
    this.subscriptions = [
      vscode.window.registerWebviewViewProvider(View.chat, this, { webviewOptions: { retainContextWhenHidden: true } }),
      client.onTurnEvent.event((event) => this.onEvent(event)),
      client.onCompaction.event((event) => {
        if (event.sessionId === client.sessionId) {
          this.push({ kind: 'compaction', event, turnId: this.turnId ?? null });
        }
      }),
      client.onDidChangeSession.event(() => void this.load()),
      client.onDidStart.event(() => void this.load()),
      client.onDidChangeState.event(() => void this.postBanner()),
      client.interceptCommand(ServerCommand.fix, (args, send) => this.fixFromQuickFix(args, send)),
      client.handleApprovals((request) => {
        void this.reveal();
        return services.approvals.ask(request);
      }),
      client.edits.onDidApply((applied) => {
        if (applied.label === EditLabel.agent) this.keepDiff(applied.changes);
      }),
      services.approvals.onDidChange((e) => this.push({ kind: 'approval', id: e.id, request: e.request, state: e.state })),
      services.reviews.onDidChange((e) => this.onReview(e)),
    ];
  }

  dispose(): void {
    this.running?.cancel();
    this.onDidShow.dispose();
    this.subscriptions.forEach((s) => s.dispose());
  }

  /** Everything shown in the chat, oldest first (the tests read it). */
  transcript(): readonly ChatEntry[] {
    return this.entries;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Settles when the focused session's transcript is loaded (the tests wait for it). */
  get loaded(): Promise<void> {
    return this.loading;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.onDidShow.fire();
    const scripts = vscode.Uri.joinPath(this.extensionUri, ...WEBVIEW_DIR);
    const media = vscode.Uri.joinPath(this.extensionUri, MEDIA_DIR);
    view.webview.options = { enableScripts: true, localResourceRoots: [scripts, media] };
    view.webview.html = this.html(view.webview, scripts, media);
    view.webview.onDidReceiveMessage((message: unknown) => dispatch(this.handlers, message));
    view.onDidChangeVisibility(() => view.visible && this.post({ type: 'focus' }));
    view.onDidDispose(() => {
      this.view = undefined;
    });
  }

  /** Shows the chat view and puts the cursor in the prompt. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${View.chat}.focus`);
    this.post({ type: 'focus' });
  }

  /** Runs one `cairn/turn` in the focused session; resolves to its result (undefined when it failed or was stopped). */
  async ask(message: string, mode: Mode = 'build'): Promise<TurnResult | undefined> {
    if (this.running) {
      void vscode.window.showWarningMessage('Cairn: a turn is already running; stop it first.');
      return undefined;
    }
    await this.loading;
    const references = await this.existingReferences(mentions(message));
    this.push({ kind: 'user', text: message, mode, references });
    const params = { message, mode, ...(references.length > 0 ? { references } : {}) };
    return this.track((token) => this.client.request(Method.turn, params, token));
  }

  /** `cairn.fix` on the server for one diagnostic, in the focused session; its turn is shown here. */
  async fix(uri: vscode.Uri, diagnostic: vscode.Diagnostic): Promise<TurnResult | undefined> {
    await this.loading;
    this.push({ kind: 'user', text: `Fix: ${diagnostic.message}`, mode: 'build', references: [] });
    const args = [uri.toString(), toWireDiagnostic(diagnostic), ...this.sessionArgument()];
    return this.track(() => this.client.executeCommand(ServerCommand.fix, args));
  }

  /** A "Fix with Cairn" quick fix: the server's `cairn.fix`, sent for the focused session and shown here. */
  private async fixFromQuickFix(args: unknown[], send: (args: unknown[]) => Promise<unknown>): Promise<unknown> {
    await this.loading;
    const diagnostic = args[1] as { message?: unknown } | undefined;
    const message = typeof diagnostic?.message === 'string' ? diagnostic.message : 'diagnostic';
    this.push({ kind: 'user', text: `Fix: ${message}`, mode: 'build', references: [] });
    void this.reveal();
    return this.track(() => send([...args.slice(0, 2), ...this.sessionArgument()]) as Promise<TurnResult>);
  }

  private sessionArgument(): string[] {
    return this.client.sessionId ? [this.client.sessionId] : [];
  }

  /** A line in the chat about something the extension did. */
  note(text: string): void {
    this.push({ kind: 'notice', text });
  }

  /** Cancels the running turn (the server gets `$/cancelRequest`). */
  stop(): void {
    this.running?.cancel();
  }

  /** Starts a new, empty chat (a new session). */
  async newChat(): Promise<void> {
    if (this.running) {
      void vscode.window.showWarningMessage('Cairn: a turn is running; stop it before starting a new chat.');
      return;
    }
    await this.client.newSession();
    await this.loading;
    void this.reveal();
  }

  /**
   * Back to before turn `turnId`: its (and later turns') files, and/or a fork of the
   * conversation (then focused). Asks first unless `confirmed`. Resolves to the
   * paths restored, or undefined when nothing was done.
   */
  async restore(turnId: string, files: boolean, conversation: boolean, confirmed = false): Promise<string[] | undefined> {
    const sessionId = this.client.sessionId;
    if (!sessionId || this.running) return undefined;
    if (!confirmed && !(await confirmRestore(files, conversation))) return undefined;
    try {
      const result = await this.client.requestRaw(Method.restore, { sessionId, turnId, files, conversation });
      const restored = result.restoredFiles;
      const what = restored.length > 0 ? `Restored ${restored.length} file(s) to before this turn: ${restored.join(', ')}.` : '';
      if (conversation) {
        this.client.setSession(result.sessionId);
        await this.loading;
        this.push({ kind: 'notice', text: [what, 'This chat is a fork of the conversation before that turn.'].filter(Boolean).join(' ') });
      } else {
        await this.load();
        this.push({ kind: 'notice', text: what || 'No files to restore: that turn and the later ones changed none.' });
      }
      return restored;
    } catch (error) {
      this.push({ kind: 'error', text: errorText(error) });
      return undefined;
    }
  }

  /** Reloads the focused session's rows from the server's trace. */
  load(): Promise<void> {
    const sessionId = this.client.sessionId;
    this.loading = (async () => {
      if (!sessionId || this.client.state !== 'running') {
        this.entries = [];
        this.title = '';
      } else {
        try {
          const transcript = await this.client.requestRaw(Method.transcript, { sessionId });
          if (sessionId !== this.client.sessionId) return;
          this.entries = transcriptEntries(transcript);
          this.title = transcript.title;
        } catch (error) {
          this.entries = [{ kind: 'error', text: errorText(error) }];
        }
      }
      this.postReset();
      await this.postBanner();
    })();
    return this.loading;
  }

  private onEvent(event: TurnEvent): void {
    if (event.sessionId !== this.client.sessionId) return;
    this.turnId = event.turnId || this.turnId;
    if (event.kind === 'toolStart') this.callId = event.callId ?? undefined;
    if (event.kind === 'toolEnd' && event.callId === this.callId) this.callId = undefined;
    this.push({ kind: 'event', event });
    if (event.callId && event.kind === 'toolEnd' && this.diffs.has(event.callId)) {
      this.post({ type: 'diff', callId: event.callId });
    }
    if (event.kind === 'end') {
      this.services.approvals.expire(event.turnId);
      this.services.reviews.expireAll();
      this.turnId = undefined;
    }
  }

  private onReview(entry: ReviewEntry): void {
    this.push({ kind: 'review', turnId: this.turnId ?? null, ...entry });
    if (entry.state === 'pending') void this.reveal();
  }

  /** Keeps the before/after of an agent edit for the tool call running now (its "Open diff"). */
  private keepDiff(changes: { uri: vscode.Uri; before: string; after: string }[]): void {
    const callId = this.callId;
    const [change] = changes;
    if (!callId || !change) return;
    const name = path.basename(change.uri.fsPath);
    const before = this.services.docs.set(VirtualDocuments.uri(`${DIFF_FOLDER}/${callId}/before`, name), change.before);
    const after = this.services.docs.set(VirtualDocuments.uri(`${DIFF_FOLDER}/${callId}/after`, name), change.after);
    this.diffs.set(callId, { before, after, name: vscode.workspace.asRelativePath(change.uri) });
  }

  /** Opens the side-by-side diff of a tool call's edit. */
  async openDiff(callId: string): Promise<boolean> {
    const diff = this.diffs.get(callId);
    if (!diff) return false;
    await vscode.commands.executeCommand('vscode.diff', diff.before, diff.after, `${diff.name}: Cairn's edit`);
    return true;
  }

  private async track(run: (token: vscode.CancellationToken) => Promise<TurnResult>): Promise<TurnResult | undefined> {
    const source = new vscode.CancellationTokenSource();
    this.running = source;
    this.postBusy();
    try {
      const result = await run(source.token);
      if (result && typeof result === 'object' && 'turnId' in result) {
        if (result.sessionId === this.client.sessionId) {
          this.push({ kind: 'result', result });
        }
        return result;
      }
      return undefined;
    } catch (error) {
      const code = (error as { code?: number }).code;
      const cancelled = code === REQUEST_CANCELLED || source.token.isCancellationRequested;
      this.push(cancelled ? { kind: 'stopped' } : { kind: 'error', text: errorText(error) });
      return undefined;
    } finally {
      source.dispose();
      this.running = undefined;
      this.services.approvals.expire();
      this.services.reviews.expireAll();
      this.turnId = undefined;
      this.callId = undefined;
      this.postBusy();
      void this.postBanner();
    }
  }

  private async existingReferences(candidates: string[]): Promise<string[]> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder) {
      return [];
    }
    const found: string[] = [];
    for (const ref of candidates) {
      try {
        await vscode.workspace.fs.stat(vscode.Uri.joinPath(folder.uri, ref));
        found.push(ref);
      } catch {
        // Not a file of the workspace: an ordinary "@word".
      }
    }
    return found;
  }

  private push(entry: ChatEntry): void {
    addEntry(this.entries, entry);
    this.post({ type: 'entries', entries: [entry] });
  }

  private postBusy(): void {
    this.post({ type: 'busy', busy: this.busy });
  }

  private postReset(): void {
    this.post({ type: 'reset', entries: this.entries, busy: this.busy, title: this.title, diffs: [...this.diffs.keys()] });
  }

  private async postBanner(): Promise<void> {
    this.post({ type: 'banner', banner: await this.services.banner().catch(() => null) });
  }

  private post(message: ToWebview): void {
    void this.view?.webview.postMessage(message);
  }

  /** What each message from the webview does. */
  private readonly handlers: Handlers<FromWebview, unknown> = {
    ready: () => {
      this.postReset();
      void this.postBanner();
    },
    send: async (message) => {
      if (message.text.trim() && MODES.includes(message.mode)) {
        await this.ask(message.text.trim(), message.mode);
      }
    },
    stop: () => this.stop(),
    requestFiles: async () => {
      const uris = await vscode.workspace.findFiles('**/*', FILE_COMPLETION_EXCLUDE, MAX_FILE_COMPLETIONS);
      const files = uris.map((uri) => vscode.workspace.asRelativePath(uri, false)).sort();
      this.post({ type: 'files', files });
    },
    approve: (message) => this.services.approvals.answer(message.id, message.decision),
    review: (message) => this.services.reviews.decide(message.id, message.accept),
    openReview: (message) => this.services.reviews.open(message.id),
    restore: (message) => this.restore(message.turnId, message.files, message.conversation),
    openDiff: (message) => this.openDiff(message.callId),
    copy: async (message) => {
      await vscode.env.clipboard.writeText(message.text);
      void vscode.window.setStatusBarMessage('Cairn: copied', 2000);
    },
    insert: (message) => insertAtCursor(message.text),
    openLink: (message) => openLink(message.href),
    banner: (message) => {
      const commands = { installServer: Command.installServer, chooseModel: Command.chooseModel, restartServer: Command.restartServer };
      return vscode.commands.executeCommand(commands[message.action]);
    },
  };

  private html(webview: vscode.Webview, scripts: vscode.Uri, media: vscode.Uri): string {
    const nonce = randomBytes(NONCE_BYTES).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(scripts, WEBVIEW_SCRIPT));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(media, WEBVIEW_STYLE));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `img-src ${webview.cspSource} data:`,
      `font-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    const options = MODES.map((m) => `<option value="${m}">${m}</option>`).join('');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Cairn Chat</title>
</head>
<body>
<header id="header"><span id="title" class="title" role="heading" aria-level="2">New chat</span></header>
<div id="log" role="log" aria-live="polite" aria-label="Cairn chat transcript"></div>
<div id="banner" role="status" hidden></div>
<form id="composer">
  <ul id="completions" role="listbox" aria-label="Files" hidden></ul>
  <textarea id="prompt" rows="3" aria-label="Message to Cairn" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="completions" placeholder="Ask Cairn… (@ mentions a file; Enter sends, Shift+Enter for a new line)"></textarea>
  <div class="row">
    <select id="mode" aria-label="Mode">${options}</select>
    <span class="spacer"></span>
    <button id="stop" type="button" class="secondary" disabled>Stop</button>
    <button id="send" type="submit">Send</button>
  </div>
</form>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }
}

async function confirmRestore(files: boolean, conversation: boolean): Promise<boolean> {
  const what = files && conversation ? 'the files and the conversation' : files ? 'the files' : 'the conversation';
  const detail = files
    ? "The agent's changes of this turn and of every later turn are undone. A file changed since is not touched, and then nothing is."
    : 'A new chat starts with the conversation before this turn; this one stays as it is.';
  const choice = await vscode.window.showWarningMessage(
    `Restore ${what} to before this turn?`,
    { modal: true, detail },
    'Restore',
  );
  return choice === 'Restore';
}

/** Inserts `text` at the cursor of the last active text editor (replacing its selection). */
async function insertAtCursor(text: string): Promise<boolean> {
  const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (!editor) {
    void vscode.window.showInformationMessage('Cairn: open a file to insert the code into.');
    return false;
  }
  return editor.edit((edit) => edit.replace(editor.selection, text));
}

/** Opens a link of the chat: web links outside, workspace paths (`path:line`) in the editor. */
async function openLink(href: string): Promise<void> {
  if (EXTERNAL_LINK.test(href)) {
    await vscode.env.openExternal(vscode.Uri.parse(href));
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  const match = /^(.*?)(?::(\d+))?$/.exec(decodeURIComponent(href.replace(/^file:\/\//, '')));
  if (!folder || !match) return;
  const target = path.isAbsolute(match[1]) ? vscode.Uri.file(match[1]) : vscode.Uri.joinPath(folder.uri, match[1]);
  const line = match[2] ? Math.max(Number(match[2]) - 1, 0) : 0;
  await vscode.window.showTextDocument(target, { selection: new vscode.Range(line, 0, line, 0), preview: true });
}

/** Registers `Cairn: Ask` — with a message argument it runs the turn directly. */
export function registerAsk(chat: ChatPanel): vscode.Disposable {
  return vscode.commands.registerCommand(Command.ask, async (message?: string, mode?: Mode) => {
    if (typeof message === 'string' && message.trim()) {
      void chat.reveal();
      return chat.ask(message.trim(), mode ?? 'build');
    }
    await chat.reveal();
    const typed = await vscode.window.showInputBox({ title: 'Ask Cairn', prompt: 'Your request (@path mentions a file)' });
    return typed?.trim() ? chat.ask(typed.trim(), 'build') : undefined;
  });
}
