/**
 * The palette commands that are not owned by a view: Fix Diagnostic at
 * Cursor, Compact Now (reported in the chat), Show Context Manifest, Show
 * Trace, Restart Server, New Chat, Choose Model, Install Server, Locate
 * Server, Try It on the Current File.
 */
import * as vscode from 'vscode';
import { ChatPanel } from './chat';
import { CairnClient } from './client';
import { Command } from './constants';
import { errorText } from './errorText';
import { showManifest, showTrace } from './manifest';
import { ModelPicker } from './modelPicker';
import { CompactResult, Method } from './protocol';
import { ServerInstaller } from './serverInstall';
import { CONFIG_SECTION, CONFIG_SERVER_PYTHON } from './settingKeys';
import { formatTokens } from './statusBar';
import { VirtualDocuments } from './virtualDocs';

/** The diagnostic under the cursor; the most severe one when several overlap. */
export function diagnosticAtCursor(editor: vscode.TextEditor): vscode.Diagnostic | undefined {
  const position = editor.selection.active;
  const here = vscode.languages
    .getDiagnostics(editor.document.uri)
    .filter((d) => d.range.contains(position))
    .sort((a, b) => a.severity - b.severity);
  return here[0];
}

async function fixAtCursor(chat: ChatPanel): Promise<unknown> {
  const editor = vscode.window.activeTextEditor;
  const diagnostic = editor ? diagnosticAtCursor(editor) : undefined;
  if (!editor || !diagnostic) {
    void vscode.window.showInformationMessage('Cairn: there is no diagnostic at the cursor.');
    return undefined;
  }
  void chat.reveal();
  return chat.fix(editor.document.uri, diagnostic);
}

/** What Compact Now did, in words (one line in the chat, the same as the server's events). */
export function compactSummary(result: CompactResult): string {
  if (result.kind === 'none') {
    return 'Compact Now: nothing to compact yet (the history is short, or already compacted).';
  }
  return `Compact Now: compacted (${result.kind}) ${formatTokens(result.tokensBefore)} → ${formatTokens(result.tokensAfter)} tokens.`;
}

/** `Cairn: Try It on the Current File`: asks about the file in the editor. */
async function tryOnFile(chat: ChatPanel): Promise<unknown> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.uri.scheme !== 'file') {
    void vscode.window.showInformationMessage('Cairn: open a file of the workspace first, then try again.');
    return undefined;
  }
  const file = vscode.workspace.asRelativePath(editor.document.uri, false);
  void chat.reveal();
  return chat.ask(`Explain what @${file} does, and point out anything that looks wrong.`, 'plan');
}

/** `Cairn: Locate Server`: pick a Python that has the server installed. */
async function locateServer(): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: 'Cairn: choose a Python interpreter that has cairn-lsp installed',
    canSelectMany: false,
    openLabel: 'Use this Python',
  });
  const python = picked?.[0]?.fsPath;
  if (python) {
    await vscode.workspace.getConfiguration(CONFIG_SECTION).update(CONFIG_SERVER_PYTHON, python, vscode.ConfigurationTarget.Global);
  }
  return python;
}

/** Runs a command body and turns a failure into an error message (and an undefined result). */
function guarded<A extends unknown[], T>(body: (...args: A) => Promise<T>): (...args: A) => Promise<T | undefined> {
  return async (...args: A) => {
    try {
      return await body(...args);
    } catch (error) {
      void vscode.window.showErrorMessage(errorText(error));
      return undefined;
    }
  };
}

export interface CommandParts {
  client: CairnClient;
  chat: ChatPanel;
  docs: VirtualDocuments;
  models: ModelPicker;
  installer: ServerInstaller;
}

export function registerCommands({ client, chat, docs, models, installer }: CommandParts): vscode.Disposable[] {
  const install = async (): Promise<boolean> => {
    await installer.install();
    return client.restart();
  };
  return [
    vscode.commands.registerCommand(Command.fixAtCursor, guarded(() => fixAtCursor(chat))),
    vscode.commands.registerCommand(
      Command.compactNow,
      guarded(async () => {
        const result = await client.request(Method.compact, {});
        chat.note(compactSummary(result));
        return result;
      }),
    ),
    vscode.commands.registerCommand(Command.showManifest, guarded(() => showManifest(client, docs))),
    vscode.commands.registerCommand(Command.showTrace, guarded(() => showTrace(client, docs))),
    vscode.commands.registerCommand(Command.restartServer, () => client.restart()),
    vscode.commands.registerCommand(Command.newChat, guarded(() => chat.newChat())),
    vscode.commands.registerCommand(Command.chooseModel, guarded((model?: string, key?: string) => models.choose(model, key))),
    vscode.commands.registerCommand(Command.installServer, guarded(install)),
    vscode.commands.registerCommand(Command.locateServer, guarded(locateServer)),
    vscode.commands.registerCommand(Command.tryOnFile, guarded(() => tryOnFile(chat))),
  ];
}
