/**
 * Starts, stops and restarts the server, one job at a time and in order, and
 * keeps the state every view shows (`cairn.serverState`): explains why it
 * cannot start (not installed, not found, or it exited during `initialize`:
 * its stderr tail and exit code), restarts a server that crashed after it was
 * up, and stops a crash loop (more than MAX_RESTARTS crashes within
 * RESTART_WINDOW_MS) with the crash-loop message.
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  LanguageClient,
  State,
} from 'vscode-languageclient/node';
import { MAX_RESTARTS, MAX_TRANSPORT_ERRORS, RESTART_WINDOW_MS } from './constants';
import { CommandInterceptor, createLanguageClient } from './languageClient';
import { ServerProcess } from './serverProcess';
import { CONFIG_SECTION } from './settingKeys';
import { ServerLaunch, findExecutable, serverLaunch } from './settings';
import { crashLoopMessage, notFoundMessage, notInstalledMessage, startFailureMessage } from './startErrors';

/** `missing`: no server to start (none installed); `failed`: it could not start or crashed. */
export type ClientState = 'stopped' | 'starting' | 'running' | 'failed' | 'missing';

/** What the lifecycle needs from the client around it. */
export interface LifecycleHost {
  /** The server's environment additions (the API keys the user stored). */
  environment(): Promise<Record<string, string>>;
  /** The managed environment's `cairn`, when the extension installed one. */
  managedServer(): string | undefined;
  /** The interceptor registered for a server command, if any. */
  interceptor(command: string): CommandInterceptor | undefined;
  /** A new client, before it starts: the server's notifications and requests it relays. */
  subscribe(client: LanguageClient): void;
  /** A client runs (first start or automatic restart), just before the state says so. */
  running(client: LanguageClient): void;
  /** The state says running: focus a session the server serves, then announce the start. */
  up(): Promise<void>;
}

export class ServerLifecycle implements vscode.Disposable {
  private current: LanguageClient | undefined;
  private readonly process = new ServerProcess();
  private crashes: number[] = [];
  private everRunning = false;
  private queue: Promise<unknown> = Promise.resolve();
  private currentState: ClientState = 'stopped';
  /** The last error message shown to the user. */
  lastError: string | undefined;
  /** How the running (or last) server was started. */
  launch: ServerLaunch | undefined;
  /** Fired on every state change. */
  readonly onDidChangeState = new vscode.EventEmitter<ClientState>();

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly host: LifecycleHost,
  ) {}

  get state(): ClientState {
    return this.currentState;
  }

  /** The language client of the current server (running, or starting). */
  get client(): LanguageClient | undefined {
    return this.current;
  }

  /** Starts the server; resolves to whether it is running. Never throws. */
  start(): Promise<boolean> {
    return this.serialize(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.serialize(() => this.doStop());
  }

  /** A fresh server with the current settings (the crash counter is reset). */
  restart(): Promise<boolean> {
    return this.serialize(async () => {
      await this.doStop();
      this.crashes = [];
      return this.doStart();
    });
  }

  dispose(): void {
    void this.stop();
    this.onDidChangeState.dispose();
  }

  private setState(state: ClientState): void {
    if (state !== this.currentState) {
      this.currentState = state;
      void vscode.commands.executeCommand('setContext', 'cairn.serverState', state);
      this.onDidChangeState.fire(state);
    }
  }

  private serialize<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async doStart(): Promise<boolean> {
    const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
    const launch = serverLaunch(config, this.host.managedServer());
    this.launch = launch;
    this.everRunning = false;
    this.lastError = undefined;
    if (!launch) {
      this.lastError = notInstalledMessage();
      this.output.appendLine(this.lastError);
      this.setState('missing');
      return false;
    }
    if (!findExecutable(launch.command)) {
      this.fail(notFoundMessage(launch));
      return false;
    }
    this.setState('starting');
    const environment = await this.host.environment();
    const client = createLanguageClient({
      output: this.output,
      config,
      errorHandler: this.errorHandler(launch),
      spawn: () => this.process.spawn(launch, environment),
      interceptor: (command) => this.host.interceptor(command),
    });
    this.host.subscribe(client);
    this.current = client;
    let started = false;
    try {
      await client.start();
      // A failed `initialize` resolves start() with the client stopped.
      started = client.isRunning();
    } catch {
      started = false;
    }
    if (!started) {
      await this.process.waitForExit();
      this.current = undefined;
      await client.dispose().catch(() => undefined);
      this.fail(startFailureMessage(launch, this.process.stderrTail, this.process.exitCode));
      return false;
    }
    this.host.running(client);
    await this.up(launch);
    return true;
  }

  /** A server is up: say so, then let the host focus a session and announce it. */
  private async up(launch: ServerLaunch): Promise<void> {
    this.setState('running');
    this.everRunning = true;
    this.output.appendLine(`Cairn: server started (${launch.display})`);
    await this.host.up();
  }

  private async doStop(): Promise<void> {
    const client = this.current;
    this.current = undefined;
    this.setState('stopped');
    if (client) {
      try {
        await client.stop();
      } catch (error) {
        this.output.appendLine(`Cairn: stopping the server failed: ${String(error)}`);
      }
      await client.dispose().catch(() => undefined);
    }
  }

  private errorHandler(launch: ServerLaunch): ErrorHandler {
    return {
      error: (error, _message, count): ErrorHandlerResult => {
        this.output.appendLine(`Cairn: connection error: ${error.message}`);
        const action = (count ?? 0) <= MAX_TRANSPORT_ERRORS ? ErrorAction.Continue : ErrorAction.Shutdown;
        return { action, handled: true };
      },
      closed: async (): Promise<CloseHandlerResult> => {
        await this.process.waitForExit();
        if (!this.everRunning) {
          // A server that never came up: start() explains why; retrying will not help.
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        const now = Date.now();
        this.crashes = [...this.crashes.filter((t) => now - t < RESTART_WINDOW_MS), now];
        if (this.crashes.length > MAX_RESTARTS) {
          this.setState('failed');
          this.fail(crashLoopMessage(launch, this.crashes.length, this.process.stderrTail));
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        this.output.appendLine(`Cairn: the server exited; restarting (${this.crashes.length}/${MAX_RESTARTS}).`);
        this.setState('starting');
        this.everRunning = false;
        this.watchRestart(launch);
        return { action: CloseAction.Restart, handled: true };
      },
    };
  }

  /** After an automatic restart: running again once it is up, or explain why it is not. */
  private watchRestart(launch: ServerLaunch): void {
    const client = this.current;
    if (!client) {
      return;
    }
    // The client passes through Stopped (its "initial" state) before Starting: only a Stopped
    // after Starting means the restart failed.
    let starting = false;
    const subscription = client.onDidChangeState((event) => {
      if (event.newState === State.Starting) {
        starting = true;
      } else if (event.newState === State.Running) {
        subscription.dispose();
        this.host.running(client);
        void this.up(launch);
      } else if (event.newState === State.Stopped && starting && this.current === client) {
        subscription.dispose();
        void this.process
          .waitForExit()
          .then(() => this.fail(startFailureMessage(launch, this.process.stderrTail, this.process.exitCode)));
      }
    });
  }

  private fail(message: string): void {
    this.setState('failed');
    this.lastError = message;
    this.output.appendLine(message);
    void vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output').then((choice) => {
      if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', CONFIG_SECTION);
      } else if (choice === 'Show Output') {
        this.output.show(true);
      }
    });
  }
}
