/**
 * Restricted Mode as Cairn shows it: while VS Code's Workspace Trust has not
 * been granted to the folder, the server is told `workspaceTrusted: false` and
 * ignores what the folder's files would make it run or send; this says so, in
 * one sentence, where the user looks for what is missing (the context meter's
 * item and tooltip, the MCP Servers view's message). Granting trust restarts
 * the server (settingsChanges.ts `watchTrust`) and the sentence goes away.
 */
import * as vscode from 'vscode';

/** The one sentence of Restricted Mode. */
export const RESTRICTED_MODE =
  "Restricted Mode: this folder is not trusted, so Cairn ignores what its cairn.toml and .vscode/settings.json would run or send (MCP servers, the provider's endpoint, key variable and headers, pre-approved commands). Trust the folder to use them.";

/** The status-bar icon of a folder in Restricted Mode. */
export const RESTRICTED_ICON = '$(workspace-untrusted)';

/** Whether the folder is in Restricted Mode (Workspace Trust not granted). */
export function restricted(): boolean {
  return !vscode.workspace.isTrusted;
}
