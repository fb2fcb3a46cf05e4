/**
 * The Chat panel (a WebviewView): a prompt with a mode and `@file`
 * completion; Send runs `cairn/turn`, Stop cancels it (`$/cancelRequest`);
 * the turn's `cairn/turnEvent`s and `cairn/compaction`s are shown as they
 * arrive. The transcript is kept here, so it survives the view being hidden.
 * The page's script is src/webview/chat.ts; the messages between the two are
 * typed in src/webview/messages.ts.
 */
import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import { CairnClient } from './client';
import {
  Command,
  FILE_COMPLETION_EXCLUDE,
  MAX_FILE_COMPLETIONS,
  MAX_TRANSCRIPT_EVENTS,
  View,
} from './constants';
import { toWireDiagnostic } from './diagnostics';
import { errorText } from './goalTree';
import { MODES, Method, Mode, ServerCommand, TurnResult } from './protocol';
import { ChatEntry, FromWebview, Handlers, ToWebview, dispatch } from './webview/messages';

export type { ChatEntry } from './webview/messages';

/** JSON-RPC `RequestCancelled`: the server stopped the turn at our `$/cancelRequest`. */
const REQUEST_CANCELLED = -32800;
const NONCE_BYTES = 18;
/** The webview's script, bundled by esbuild from src/webview/chat.ts. */
const WEBVIEW_SCRIPT_DIR = ['dist', 'webview'];
const WEBVIEW_SCRIPT = 'chat.js';

/** The `@path` mentions of a message (the candidates; existence is checked separately). */
export function mentions(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/(?:^|\s)@([^\s@]+)/g)) {
    found.add(match[1].replace(/[.,;:!?)\]]+$/, ''));
  }
  return [...found].filter(Boolean);
}

export class ChatPanel implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly entries: ChatEntry[] = [];
  private running: vscode.CancellationTokenSource | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly client: CairnClient,
  ) {
    this.subscriptions = [
      vscode.window.registerWebviewViewProvider(View.chat, this),
      client.onTurnEvent.event((event) => this.push({ kind: 'event', event })),
      client.onCompaction.event((event) => this.push({ kind: 'compaction', event })),
      client.interceptCommand(ServerCommand.fix, (args, send) => this.fixFromQuickFix(args, send)),
    ];
  }

  dispose(): void {
    this.running?.cancel();
    this.subscriptions.forEach((s) => s.dispose());
  }

  /** Everything shown in the chat, oldest first (the tests read it). */
  transcript(): readonly ChatEntry[] {
    return this.entries;
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const scripts = vscode.Uri.joinPath(this.extensionUri, ...WEBVIEW_SCRIPT_DIR);
    view.webview.options = { enableScripts: true, localResourceRoots: [media, scripts] };
    view.webview.html = this.html(view.webview, media, scripts);
    view.webview.onDidReceiveMessage((message: unknown) => dispatch(this.handlers, message));
    view.onDidDispose(() => {
      this.view = undefined;
    });
  }

  /** Shows the chat view and puts the cursor in the prompt. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${View.chat}.focus`);
    this.post({ type: 'focus' });
  }

  /** Runs one `cairn/turn`; resolves to its result (undefined when it failed or was stopped). */
  async ask(message: string, mode: Mode = 'build'): Promise<TurnResult | undefined> {
    if (this.running) {
      void vscode.window.showWarningMessage('Cairn: a turn is already running; stop it first.');
      return undefined;
    }
    const references = await this.existingReferences(mentions(message));
    this.push({ kind: 'user', text: message, mode, references });
    const params = { message, mode, ...(references.length > 0 ? { references } : {}) };
    return this.track((token) => this.client.request(Method.turn, params, token));
  }

  /** `cairn.fix` on the server for one diagnostic; its turn is shown here. */
  async fix(uri: vscode.Uri, diagnostic: vscode.Diagnostic): Promise<TurnResult | undefined> {
    this.push({ kind: 'user', text: `Fix: ${diagnostic.message}`, mode: 'build', references: [] });
    return this.track(() =>
      this.client.executeCommand(ServerCommand.fix, [uri.toString(), toWireDiagnostic(diagnostic)]),
    );
  }

  /** A "Fix with Cairn" quick fix: the server's `cairn.fix` command, shown here like a turn. */
  private async fixFromQuickFix(args: unknown[], send: () => Promise<unknown>): Promise<unknown> {
    const diagnostic = args[1] as { message?: unknown } | undefined;
    const message = typeof diagnostic?.message === 'string' ? diagnostic.message : 'diagnostic';
    this.push({ kind: 'user', text: `Fix: ${message}`, mode: 'build', references: [] });
    void this.reveal();
    return this.track(() => send() as Promise<TurnResult>);
  }

  /** Cancels the running turn (the server gets `$/cancelRequest`). */
  stop(): void {
    this.running?.cancel();
  }

  private async track(run: (token: vscode.CancellationToken) => Promise<TurnResult>): Promise<TurnResult | undefined> {
    const source = new vscode.CancellationTokenSource();
    this.running = source;
    this.postBusy();
    try {
      const result = await run(source.token);
      if (result && typeof result === 'object' && 'turnId' in result) {
        if (this.client.sessionId === undefined) {
          this.client.setSession(result.sessionId);
        }
        this.push({ kind: 'result', result });
        return result;
      }
      return undefined;
    } catch (error) {
      const code = (error as { code?: number }).code;
      this.push(code === REQUEST_CANCELLED || source.token.isCancellationRequested ? { kind: 'stopped' } : { kind: 'error', text: errorText(error) });
      return undefined;
    } finally {
      source.dispose();
      this.running = undefined;
      this.postBusy();
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
    this.entries.push(entry);
    if (this.entries.length > MAX_TRANSCRIPT_EVENTS) {
      this.entries.splice(0, this.entries.length - MAX_TRANSCRIPT_EVENTS);
    }
    this.post({ type: 'entries', entries: [entry] });
  }

  private postBusy(): void {
    this.post({ type: 'busy', busy: this.busy });
  }

  private post(message: ToWebview): void {
    void this.view?.webview.postMessage(message);
  }

  /** What each message from the webview does. */
  private readonly handlers: Handlers<FromWebview, unknown> = {
    ready: () => this.post({ type: 'reset', entries: this.entries, busy: this.busy }),
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
  };

  private html(webview: vscode.Webview, media: vscode.Uri, scripts: vscode.Uri): string {
    const nonce = makeNonce();
    const script = webview.asWebviewUri(vscode.Uri.joinPath(scripts, WEBVIEW_SCRIPT));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css'));
    const csp = [
      "default-src 'none'",
      `style-src ${webview.cspSource}`,
      `img-src ${webview.cspSource}`,
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
<div id="log" role="log" aria-live="polite"></div>
<form id="composer">
  <ul id="completions" role="listbox" hidden></ul>
  <textarea id="prompt" rows="3" aria-label="Message" placeholder="Ask Cairn… (@ mentions a file; Enter sends, Shift+Enter for a new line)"></textarea>
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

function makeNonce(): string {
  return randomBytes(NONCE_BYTES).toString('base64');
}
