/**
 * The server environment the extension manages: a Python virtual
 * environment in the extension's global storage, created with the user's
 * Python (3.11 or newer, found on PATH), with the Cairn server installed from
 * the wheel shipped in the `.vsix` (`server/*.whl`; its dependencies from
 * `server/wheels/` when a platform build ships them, else the package index
 * pip is configured with) — or from the package index when no wheel is
 * shipped. A marker file written last says the environment is complete and
 * which wheel it holds; a newer shipped wheel is installed over it.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { SERVER_DISTRIBUTION } from './settingKeys';
import { findExecutable } from './settings';

const ENV_FOLDER = 'server-env';
const MARKER = 'cairn-install.json';
const WHEEL_FOLDER = 'server';
const DEPENDENCY_WHEELS = 'wheels';
const MIN_PYTHON = [3, 11] as const;
/** Interpreters tried, in order (the newest first). */
const PYTHON_CANDIDATES = ['python3.13', 'python3.12', 'python3.11', 'python3', 'python'];
const PYTHON_CHECK =
  `import sys, venv, ensurepip; print("ok" if sys.version_info >= (${MIN_PYTHON.join(', ')}) else "old")`;
/** pip output lines longer than this are cut in the progress message. */
const PROGRESS_LINE_CHARS = 80;

interface Marker {
  wheel: string;
  installedAt: string;
}

/** The result of running a process: its exit code and its output. */
interface Run {
  code: number | null;
  output: string;
}

function run(command: string, args: string[], onLine: (line: string) => void): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      output += text;
      text.split('\n').filter((line) => line.trim()).forEach(onLine);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', (error) => resolve({ code: null, output: output + String(error) }));
    child.once('close', (code) => resolve({ code, output }));
  });
}

export class ServerInstaller {
  constructor(
    private readonly storage: vscode.Uri,
    private readonly extensionPath: string,
    private readonly log: (line: string) => void,
  ) {}

  private get envDir(): string {
    return path.join(this.storage.fsPath, ENV_FOLDER);
  }

  private bin(name: string): string {
    const folder = process.platform === 'win32' ? 'Scripts' : 'bin';
    return path.join(this.envDir, folder, process.platform === 'win32' ? `${name}.exe` : name);
  }

  private marker(): Marker | undefined {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.envDir, MARKER), 'utf8')) as Marker;
    } catch {
      return undefined;
    }
  }

  /** The wheel shipped in the extension (`server/cairn_lsp-*.whl`), if any. */
  bundledWheel(): string | undefined {
    const folder = path.join(this.extensionPath, WHEEL_FOLDER);
    const prefix = SERVER_DISTRIBUTION.replace(/-/g, '_') + '-';
    try {
      const wheels = fs.readdirSync(folder).filter((name) => name.startsWith(prefix) && name.endsWith('.whl'));
      return wheels.length > 0 ? path.join(folder, wheels.sort().at(-1) as string) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The managed `cairn` when the environment is complete, else undefined. */
  installed(): string | undefined {
    return this.marker() && fs.existsSync(this.bin('cairn')) ? this.bin('cairn') : undefined;
  }

  /** Whether the shipped wheel is newer than (different from) the one installed. */
  outdated(): boolean {
    const marker = this.marker();
    const wheel = this.bundledWheel();
    return marker !== undefined && wheel !== undefined && marker.wheel !== path.basename(wheel);
  }

  /** The first Python on PATH that is new enough and can make virtual environments. */
  async findPython(): Promise<string> {
    const tried: string[] = [];
    for (const name of PYTHON_CANDIDATES) {
      const found = findExecutable(name);
      if (!found || tried.includes(found)) continue;
      tried.push(found);
      const check = await run(found, ['-c', PYTHON_CHECK], () => undefined);
      if (check.code === 0 && check.output.trim() === 'ok') return found;
    }
    const where = tried.length > 0 ? ` (tried ${tried.join(', ')})` : '';
    throw new Error(
      `Cairn: no Python ${MIN_PYTHON.join('.')} or newer with venv support was found on PATH${where}. ` +
        'Install one (python.org, or your package manager: e.g. python3-venv), then run "Cairn: Install Server" again; ' +
        `or install the server yourself (\`pip install ${SERVER_DISTRIBUTION}\`) and set cairn.server.pythonPath.`,
    );
  }

  /** Creates (or updates) the environment, with a progress notification; the managed `cairn`. */
  install(): Thenable<string> {
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Cairn: installing the server', cancellable: false },
      (progress) => this.installWith((message) => progress.report({ message })),
    );
  }

  private async installWith(report: (message: string) => void): Promise<string> {
    const fresh = !this.marker();
    if (fresh) {
      report('finding Python…');
      const python = await this.findPython();
      fs.rmSync(this.envDir, { recursive: true, force: true });
      fs.mkdirSync(path.dirname(this.envDir), { recursive: true });
      report(`creating an environment with ${python}…`);
      this.log(`Cairn: creating ${this.envDir} with ${python}`);
      const venv = await run(python, ['-m', 'venv', this.envDir], (line) => this.log(line));
      if (venv.code !== 0) {
        fs.rmSync(this.envDir, { recursive: true, force: true });
        throw new Error(`Cairn: \`${python} -m venv\` failed (exit ${venv.code}); see the Cairn output.`);
      }
    }
    const wheel = this.bundledWheel();
    const target = wheel ?? SERVER_DISTRIBUTION;
    const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--upgrade', target];
    const wheels = path.join(this.extensionPath, WHEEL_FOLDER, DEPENDENCY_WHEELS);
    if (fs.existsSync(wheels)) args.push('--find-links', wheels);
    report(`installing ${path.basename(target)} and its dependencies (this can take a minute)…`);
    this.log(`Cairn: ${this.bin('python')} ${args.join(' ')}`);
    const pip = await run(this.bin('python'), args, (line) => {
      this.log(line);
      report(line.slice(0, PROGRESS_LINE_CHARS));
    });
    if (pip.code !== 0) {
      if (fresh) fs.rmSync(this.envDir, { recursive: true, force: true });
      const last = pip.output.trim().split('\n').at(-1) ?? '';
      throw new Error(`Cairn: installing the server failed (pip exit ${pip.code}): ${last} See the Cairn output.`);
    }
    const marker: Marker = { wheel: path.basename(target), installedAt: new Date().toISOString() };
    fs.writeFileSync(path.join(this.envDir, MARKER), JSON.stringify(marker, null, 2));
    this.log(`Cairn: server installed in ${this.envDir}`);
    return this.bin('cairn');
  }
}
