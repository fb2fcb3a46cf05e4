/**
 * The server's process under the language client: spawned in the first
 * workspace folder with the extension's additions (the user's API keys) in its
 * environment; its stderr goes to the output channel (the language client
 * writes it) and the last lines are kept here, with the exit, so that a server
 * that could not start or keeps crashing can be explained.
 */
import { ChildProcess, spawn } from 'child_process';
import * as vscode from 'vscode';
import { STDERR_TAIL_LINES } from './constants';
import { ServerLaunch } from './settings';

/** How long to wait for a failed server's exit (and last stderr) before explaining it. */
const EXIT_WAIT_MS = 2000;

export class ServerProcess {
  private child: ChildProcess | undefined;
  /** Settles when the current process has exited and its output is read. */
  private closed: Promise<void> = Promise.resolve();
  /** The last STDERR_TAIL_LINES non-blank lines of the current process's stderr. */
  stderrTail: string[] = [];

  /** The current (or last) process's exit code; null while it runs or when there was none. */
  get exitCode(): number | null {
    return this.child?.exitCode ?? null;
  }

  /** Spawns the server process; resolves once it runs (the language client talks to it over stdio). */
  spawn(launch: ServerLaunch, environment: Record<string, string>): Promise<ChildProcess> {
    this.stderrTail = [];
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return new Promise((resolve, reject) => {
      const env = { ...process.env, ...environment };
      const child = spawn(launch.command, launch.args, { cwd, env, stdio: 'pipe' });
      this.child = child;
      this.closed = new Promise((resolve) => child.once('close', () => resolve()));
      child.once('spawn', () => resolve(child));
      child.once('error', (error) => reject(error));
      child.stderr?.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        this.stderrTail.push(...text.split('\n').filter((line) => line.trim() !== ''));
        this.stderrTail.splice(0, Math.max(0, this.stderrTail.length - STDERR_TAIL_LINES));
      });
    });
  }

  /** Waits (a bounded time) until the process is gone and its stderr fully read. */
  waitForExit(): Promise<void> {
    return Promise.race([this.closed, new Promise<void>((resolve) => setTimeout(resolve, EXIT_WAIT_MS))]);
  }
}
