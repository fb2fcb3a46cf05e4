/**
 * Reads the `cairn.*` configuration: how to launch the server and which
 * server settings the user set (forwarded as `initializationOptions`).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CONFIG_SECTION,
  CONFIG_SERVER_COMMAND,
  CONFIG_SERVER_PYTHON,
  DEFAULT_SERVER_COMMAND,
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
}

/** The launch command from `cairn.server.pythonPath` or `cairn.server.command`. */
export function serverLaunch(config: vscode.WorkspaceConfiguration): ServerLaunch {
  const python = (config.get<string>(CONFIG_SERVER_PYTHON) ?? '').trim();
  if (python) {
    const args = ['-m', 'cairn', 'serve'];
    return { command: python, args, pythonPath: python, display: [python, ...args].join(' ') };
  }
  const configured = config.get<string[]>(CONFIG_SERVER_COMMAND);
  const argv = configured && configured.length > 0 ? configured : [...DEFAULT_SERVER_COMMAND];
  const [command, ...args] = argv;
  return { command, args, pythonPath: undefined, display: argv.join(' ') };
}

/** The server settings the user set explicitly (any scope), camelCase, as `initializationOptions`. */
export function userServerSettings(config: vscode.WorkspaceConfiguration): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const key of SERVER_SETTING_KEYS) {
    const inspected = config.inspect(key);
    const isSet =
      inspected !== undefined &&
      (inspected.globalValue !== undefined ||
        inspected.workspaceValue !== undefined ||
        inspected.workspaceFolderValue !== undefined);
    if (isSet) {
      options[key] = config.get(key);
    }
  }
  return options;
}

/** Whether a configuration change needs a server restart (everything but `cairn.trace.*`). */
export function needsRestart(event: vscode.ConfigurationChangeEvent): boolean {
  const keys = [CONFIG_SERVER_COMMAND, CONFIG_SERVER_PYTHON, ...SERVER_SETTING_KEYS];
  return keys.some((key) => event.affectsConfiguration(`${CONFIG_SECTION}.${key}`));
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
