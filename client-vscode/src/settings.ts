/**
 * Reads the `cairn.*` configuration: how to launch the server (a configured
 * Python or command, `cairn` on PATH, or the environment the extension
 * manages), which server settings the user set (forwarded as
 * `initializationOptions` and, on a change, as `workspace/didChangeConfiguration`),
 * and which changes need a new server.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CONFIG_SECTION,
  CONFIG_SERVER_COMMAND,
  CONFIG_SERVER_PYTHON,
  DEFAULT_SERVER_COMMAND,
  RESTART_SETTING_KEYS,
  SERVER_SETTING_KEYS,
} from './settingKeys';

/** How the server process is started. */
export interface ServerLaunch {
  command: string;
  args: string[];
  /** The Python interpreter when `cairn.server.pythonPath` is used. */
  pythonPath: string | undefined;
  /** The command line as the user would type it, for messages. */
  display: string;
  /** Where it comes from: the user's settings, `cairn` on PATH, or the managed environment. */
  origin: 'settings' | 'path' | 'managed';
}

function isSetByUser(config: vscode.WorkspaceConfiguration, key: string): boolean {
  const inspected = config.inspect(key);
  return (
    inspected !== undefined &&
    (inspected.globalValue !== undefined ||
      inspected.workspaceValue !== undefined ||
      inspected.workspaceFolderValue !== undefined)
  );
}

/**
 * How to start the server: `cairn.server.pythonPath`, else a `cairn.server.command`
 * the user set, else `cairn serve` from PATH, else the managed environment's
 * `cairn` (`managed`: its path, when installed); undefined when there is none.
 */
export function serverLaunch(config: vscode.WorkspaceConfiguration, managed?: string): ServerLaunch | undefined {
  const python = (config.get<string>(CONFIG_SERVER_PYTHON) ?? '').trim();
  if (python) {
    const args = ['-m', 'cairn', 'serve'];
    return { command: python, args, pythonPath: python, display: [python, ...args].join(' '), origin: 'settings' };
  }
  const configured = config.get<string[]>(CONFIG_SERVER_COMMAND);
  if (isSetByUser(config, CONFIG_SERVER_COMMAND) && configured && configured.length > 0) {
    const [command, ...args] = configured;
    return { command, args, pythonPath: undefined, display: configured.join(' '), origin: 'settings' };
  }
  const [program, ...args] = DEFAULT_SERVER_COMMAND;
  if (findExecutable(program)) {
    return { command: program, args, pythonPath: undefined, display: DEFAULT_SERVER_COMMAND.join(' '), origin: 'path' };
  }
  if (managed) {
    return { command: managed, args, pythonPath: undefined, display: [managed, ...args].join(' '), origin: 'managed' };
  }
  return undefined;
}

/** The server settings the user set explicitly (any scope), camelCase, as `initializationOptions`. */
export function userServerSettings(config: vscode.WorkspaceConfiguration): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of SERVER_SETTING_KEYS) {
    if (isSetByUser(config, key)) {
      options[key] = config.get(key);
    }
  }
  return options;
}

/** What a configuration change asks of the running server. */
export type SettingsChange = 'restart' | 'update' | 'none';

/**
 * `restart` when the change is to how the server starts or to a setting a running
 * server cannot take over (`RESTART_SETTING_KEYS`), `update` when the server can
 * apply it live (every other server setting), `none` otherwise (the extension's own).
 */
export function settingsChange(event: vscode.ConfigurationChangeEvent): SettingsChange {
  const affects = (key: string): boolean => event.affectsConfiguration(`${CONFIG_SECTION}.${key}`);
  if ([CONFIG_SERVER_COMMAND, CONFIG_SERVER_PYTHON, ...RESTART_SETTING_KEYS].some(affects)) {
    return 'restart';
  }
  return SERVER_SETTING_KEYS.some(affects) ? 'update' : 'none';
}

/**
 * The absolute path of `command` (searched on PATH when it has no directory part),
 * or undefined when there is no such executable file.
 */
export function findExecutable(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const isExecutable = (candidate: string): boolean => {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return fs.statSync(candidate).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes('/') || command.includes(path.sep)) {
    return isExecutable(command) ? path.resolve(command) : undefined;
  }
  const extensions = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    for (const ext of extensions) {
      const candidate = path.join(dir, command + ext);
      if (dir && isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}
