/**
 * The palette commands that are not owned by a view: Fix Diagnostic at
 * Cursor, Compact Now, Show Context Manifest, Show Trace, Restart Server.
 */
import * as vscode from 'vscode';
import { ChatPanel } from './chat';
import { CairnClient } from './client';
import { Command } from './constants';
import { errorText } from './goalTree';
import { showManifest, showTrace } from './manifest';
import { CompactResult, Method } from './protocol';
import { formatTokens } from './statusBar';

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

async function compact(client: CairnClient): Promise<CompactResult | undefined> {
  const result = await client.request(Method.compact, {});
  const message =
    result.kind === 'none'
      ? 'Cairn: nothing to compact.'
      : `Cairn: compacted (${result.kind}) ${formatTokens(result.tokensBefore)} → ${formatTokens(result.tokensAfter)} tokens.`;
  void vscode.window.showInformationMessage(message);
  return result;
}

/** Runs a command body and turns a failure into an error message (and an undefined result). */
function guarded<T>(body: () => Promise<T>): () => Promise<T | undefined> {
  return async () => {
    try {
      return await body();
    } catch (error) {
      void vscode.window.showErrorMessage(errorText(error));
      return undefined;
    }
  };
}

export function registerCommands(client: CairnClient, chat: ChatPanel): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Command.fixAtCursor, guarded(() => fixAtCursor(chat))),
    vscode.commands.registerCommand(Command.compactNow, guarded(() => compact(client))),
    vscode.commands.registerCommand(Command.showManifest, guarded(() => showManifest(client))),
    vscode.commands.registerCommand(Command.showTrace, guarded(() => showTrace(client))),
    vscode.commands.registerCommand(Command.restartServer, () => client.restart()),
  ];
}
