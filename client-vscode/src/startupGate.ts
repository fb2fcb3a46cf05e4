/**
 * When the server starts. The extension also activates at startup (`onStartupFinished`), so a
 * user who configured Cairn once — in VS Code's user settings, in their own `config.toml`, or with
 * `CAIRN_MODEL` — gets it in a folder without a `cairn.toml`. A cheap check decides whether to
 * start the server then (`configuredHere`: a stat per folder, the settings, the environment). When
 * nothing names Cairn, no server starts until the user shows they want it: a Cairn view opens, a
 * request is made (a command, the walkthrough), a `cairn.*` setting changes or a `cairn.toml`
 * appears.
 */
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { CairnClient } from './client';

/** The workspace settings file, and the section of the extension's settings. */
const SETTINGS_FILE = 'cairn.toml';
const SECTION = 'cairn';
/** The user's own settings file (the server's `cairn.files.user_config`): name and variables. */
const USER_CONFIG_FILE = 'config.toml';
const CONFIG_ENV = 'CAIRN_CONFIG';
const MODEL_ENV = 'CAIRN_MODEL';
const APP_NAME = 'cairn';

/** The user's `config.toml`, where the server's platformdirs puts it (or `CAIRN_CONFIG`). */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env, platform: string = process.platform): string {
  const named = env[CONFIG_ENV]?.trim();
  if (named) return named.startsWith('~') ? path.join(os.homedir(), named.slice(1)) : named;
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA || path.join(os.homedir(), 'AppData', 'Local');
    return path.join(local, APP_NAME, USER_CONFIG_FILE);
  }
  if (platform === 'darwin') {
    return path.join(os.homedir(), 'Library', 'Application Support', APP_NAME, USER_CONFIG_FILE);
  }
  const xdg = env.XDG_CONFIG_HOME?.trim();
  return path.join(xdg || path.join(os.homedir(), '.config'), APP_NAME, USER_CONFIG_FILE);
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** Whether Cairn is configured for this window: a folder's `cairn.toml`, a `cairn.model` setting, `CAIRN_MODEL`, the user's `config.toml`. */
export async function configuredHere(): Promise<boolean> {
  const model = vscode.workspace.getConfiguration(SECTION).inspect<string>('model');
  const values = [model?.globalValue, model?.workspaceValue, model?.workspaceFolderValue];
  if (values.some((value) => typeof value === 'string' && value.trim() !== '')) return true;
  if (process.env[MODEL_ENV]?.trim()) return true;
  const folders = vscode.workspace.workspaceFolders ?? [];
  const files = [...folders.map((f) => vscode.Uri.joinPath(f.uri, SETTINGS_FILE)), vscode.Uri.file(userConfigPath())];
  const found = await Promise.all(files.map(exists));
  return found.some(Boolean);
}

/**
 * Starts the server now when `configuredHere`, else on the first of `wanted` or a sign of
 * configuration; resolves to whether it started. `wanted` fire when the user uses Cairn.
 */
export async function startWhenWanted(start: () => Promise<boolean>, wanted: vscode.Event<unknown>[]): Promise<boolean> {
  if (await configuredHere()) return start();
  await new Promise<void>((resolve) => {
    const watchers = (vscode.workspace.workspaceFolders ?? []).map((folder) =>
      vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, SETTINGS_FILE), false, true, true),
    );
    const subscriptions: vscode.Disposable[] = [
      ...watchers,
      ...watchers.map((watcher) => watcher.onDidCreate(done)),
      ...wanted.map((event) => event(done)),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(SECTION) && done()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void configuredHere().then((yes) => yes && done())),
    ];
    function done(): void {
      subscriptions.forEach((s) => s.dispose());
      resolve();
    }
  });
  return start();
}

/**
 * Wires `cairn`'s start: now where Cairn is configured, else on the first request (`startOnDemand`, which a
 * command or the walkthrough calls) or `shown` (a Cairn view opens). `start` runs once; a server started
 * meanwhile (Install, Restart) is not started twice. Resolves to whether it runs.
 */
export function wireStartup(cairn: CairnClient, start: () => Promise<boolean>, shown: vscode.Event<unknown>, subscriptions: vscode.Disposable[]): Promise<boolean> {
  const requested = new vscode.EventEmitter<void>();
  subscriptions.push(requested);
  const startOnce = (): Promise<boolean> => (cairn.state === 'stopped' ? start() : Promise.resolve(cairn.state === 'running'));
  const ready = startWhenWanted(startOnce, [requested.event, shown]);
  cairn.startOnDemand = () => {
    requested.fire();
    return ready;
  };
  return ready;
}
