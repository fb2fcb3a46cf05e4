/**
 * Applies `cairn.*` configuration changes as they happen: a change the running
 * server can take is sent to it (then the chat reloads), one it cannot (the
 * launch, or a setting that needs a new server) restarts it; which is which is
 * `settingsChange` in settings.ts. Granting Workspace Trust restarts it too: the
 * new server is told `workspaceTrusted: true` and may use the folder's cairn.toml
 * (its MCP servers, its provider settings).
 */
import * as vscode from 'vscode';
import { CairnClient } from './client';
import { CONFIG_SECTION } from './settingKeys';
import { settingsChange } from './settings';

/** Watches the configuration for the client's settings; `updated` runs after a change was sent live. */
export function watchSettings(cairn: CairnClient, updated: () => unknown): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (!event.affectsConfiguration(CONFIG_SECTION)) return;
    const change = settingsChange(event);
    if (change === 'restart' || (change === 'update' && cairn.state !== 'running')) {
      void cairn.restart();
    } else if (change === 'update') {
      void cairn.updateSettings().then(updated);
    }
  });
}

/** Restarts the server when the user trusts the workspace (restricted mode ends). */
export function watchTrust(cairn: CairnClient): vscode.Disposable {
  return vscode.workspace.onDidGrantWorkspaceTrust(() => {
    void cairn.restart();
  });
}
