/**
 * Owns the language client: starts `cairn serve` over stdio, restarts it,
 * explains why it cannot start, stops a crash loop, and relays the server's
 * custom notifications as events that survive restarts.
 */
import { ChildProcess, spawn } from 'child_process';
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditRequest,
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  State,
} from 'vscode-languageclient/node';
import { CLIENT_ID, CLIENT_NAME, MAX_RESTARTS, MAX_TRANSPORT_ERRORS, RESTART_WINDOW_MS, STDERR_TAIL_LINES } from './constants';
import { EditApplier } from './applyEdit';
import {
  ClientNotifications,
  CommandResults,
  CompactionEvent,
  ContextStats,
  GoalTreeView,
  Method,
  Requests,
  ServerNotifications,
  TurnEvent,
} from './protocol';
import { CONFIG_SECTION } from './settingKeys';
import { ServerLaunch, findExecutable, serverLaunch, userServerSettings } from './settings';
import { crashLoopMessage, notFoundMessage, startFailureMessage } from './startErrors';

/** How long to wait for a failed server's exit (and last stderr) before explaining it. */
const EXIT_WAIT_MS = 2000;
/** How long a request waits for a server that is (re)starting. */
const START_WAIT_MS = 30_000;

export type ClientState = 'stopped' | 'starting' | 'running' | 'failed';

/** Runs a server command (`workspace/executeCommand`) on the extension's terms. */
export type CommandInterceptor = (
  args: unknown[],
  next: () => Promise<unknown>,
) => Promise<unknown>;

/** A language client that keeps its own messages: every user-facing error is shown by CairnClient. */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

export class CairnClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private process: ChildProcess | undefined;
  /** Settles when the current server process has exited and its output is read. */
  private processClosed: Promise<void> = Promise.resolve();
  private stderrTail: string[] = [];
  private crashes: number[] = [];
  private everRunning = false;
  private queue: Promise<unknown> = Promise.resolve();
  private activeSession: string | undefined;
  private readonly interceptors = new Map<string, CommandInterceptor>();
  /** Applies the server's `workspace/applyEdit` requests and saves them (see applyEdit.ts). */
  private readonly edits: EditApplier;

  private currentState: ClientState = 'stopped';
  /** The last error message shown to the user (also read by the tests). */
  lastError: string | undefined;

  readonly onGoalTreeChanged = new vscode.EventEmitter<GoalTreeView>();
  readonly onTurnEvent = new vscode.EventEmitter<TurnEvent>();
  readonly onCompaction = new vscode.EventEmitter<CompactionEvent>();
  readonly onContextStats = new vscode.EventEmitter<ContextStats>();
  /** Fired on every state change (the status bar shows a failed server). */
  readonly onDidChangeState = new vscode.EventEmitter<ClientState>();
  /** Fired each time a server is up (first start and every restart). */
  readonly onDidStart = new vscode.EventEmitter<void>();
  /** Fired when the active session changes (undefined: the server's default). */
  readonly onDidChangeSession = new vscode.EventEmitter<string | undefined>();

  constructor(private readonly output: vscode.OutputChannel) {
    this.edits = new EditApplier((line) => output.appendLine(line));
  }

  get state(): ClientState {
    return this.currentState;
  }

  private setState(state: ClientState): void {
    if (state !== this.currentState) {
      this.currentState = state;
      this.onDidChangeState.fire(state);
    }
  }

  get sessionId(): string | undefined {
    return this.activeSession;
  }

  setSession(sessionId: string | undefined): void {
    if (sessionId !== this.activeSession) {
      this.activeSession = sessionId;
      this.onDidChangeSession.fire(sessionId);
    }
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

  /** A custom request (types from `protocol.ts`); the active session id is added unless params carry one. */
  async request<M extends keyof Requests>(
    method: M,
    params: Requests[M]['params'],
    token?: vscode.CancellationToken,
  ): Promise<Requests[M]['result']> {
    const client = await this.requireClient();
    const withSession = this.withSession(params);
    return token ? client.sendRequest(method, withSession, token) : client.sendRequest(method, withSession);
  }

  /** A request sent exactly as given (no session id added). */
  async requestRaw<M extends keyof Requests>(method: M, params: Requests[M]['params']): Promise<Requests[M]['result']> {
    return (await this.requireClient()).sendRequest(method, params);
  }

  async notify<M extends keyof ClientNotifications>(method: M, params: ClientNotifications[M]): Promise<void> {
    if (this.client && this.state === 'running') {
      await this.client.sendNotification(method, params);
    }
  }

  /**
   * Routes a server command that VS Code runs (e.g. `cairn.fix` from a "Fix with
   * Cairn" quick fix) through `interceptor` before it is sent.
   */
  interceptCommand(command: string, interceptor: CommandInterceptor): vscode.Disposable {
    this.interceptors.set(command, interceptor);
    return new vscode.Disposable(() => this.interceptors.delete(command));
  }

  /** `workspace/executeCommand` on the server. */
  async executeCommand<C extends keyof CommandResults>(command: C, args: unknown[]): Promise<CommandResults[C]> {
    return (await this.requireClient()).sendRequest('workspace/executeCommand', { command, arguments: args });
  }

  dispose(): void {
    void this.stop();
    this.onGoalTreeChanged.dispose();
    this.onTurnEvent.dispose();
    this.onCompaction.dispose();
    this.onContextStats.dispose();
    this.onDidStart.dispose();
    this.onDidChangeSession.dispose();
    this.onDidChangeState.dispose();
  }

  private withSession(params: object): object {
    if (this.activeSession === undefined || 'sessionId' in params) {
      return params;
    }
    return { ...params, sessionId: this.activeSession };
  }

  /** The running client; while a (re)start is under way, waits for it (a bounded time). */
  private async requireClient(): Promise<LanguageClient> {
    if (this.state === 'starting') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, START_WAIT_MS);
        const subscription = this.onDidChangeState.event((state) => state !== 'starting' && done());
        function done(): void {
          clearTimeout(timer);
          subscription.dispose();
          resolve();
        }
      });
    }
    if (!this.client || this.state !== 'running') {
      throw new Error(this.lastError ?? 'Cairn: the server is not running (run "Cairn: Restart Server").');
    }
    return this.client;
  }

  private serialize<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async doStart(): Promise<boolean> {
    const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
    const launch = serverLaunch(config);
    this.everRunning = false;
    this.lastError = undefined;
    if (!findExecutable(launch.command)) {
      this.fail(notFoundMessage(launch));
      return false;
    }
    this.setState('starting');
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      initializationOptions: userServerSettings(config),
      outputChannel: this.output,
      errorHandler: this.errorHandler(launch),
      initializationFailedHandler: (error) => {
        this.output.appendLine(`Cairn: initialize failed: ${String(error)}`);
        return false;
      },
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*') },
      middleware: {
        executeCommand: (command, args, next) => {
          const interceptor = this.interceptors.get(command);
          const send = async (): Promise<unknown> => next(command, args);
          return interceptor ? interceptor(args, send) : send();
        },
      },
    };
    const client = new QuietLanguageClient(CLIENT_ID, CLIENT_NAME, () => this.spawn(launch), clientOptions);
    this.subscribe(client);
    this.client = client;
    let started = false;
    try {
      await client.start();
      // A failed `initialize` resolves start() with the client stopped.
      started = client.isRunning();
    } catch {
      started = false;
    }
    if (!started) {
      await this.waitForExit();
      this.client = undefined;
      await client.dispose().catch(() => undefined);
      this.fail(startFailureMessage(launch, this.stderrTail, this.process?.exitCode ?? null));
      return false;
    }
    this.handleEdits(client);
    this.setState('running');
    this.everRunning = true;
    this.output.appendLine(`Cairn: server started (${launch.display})`);
    this.onDidStart.fire();
    return true;
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
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

  private subscribe(client: LanguageClient): void {
    const on = <M extends keyof ServerNotifications>(method: M, fire: (params: ServerNotifications[M]) => void): void => {
      client.onNotification(method, fire);
    };
    on(Method.goalTreeChanged, (p) => this.onGoalTreeChanged.fire(p));
    on(Method.turnEvent, (p) => this.onTurnEvent.fire(p));
    on(Method.compaction, (p) => this.onCompaction.fire(p));
    on(Method.contextStatsChanged, (p) => this.onContextStats.fire(p));
  }

  /**
   * Takes over `workspace/applyEdit` from the client's built-in handler, which
   * leaves the edited documents unsaved. Registered once the client runs: the
   * client installs its own handler while starting, and a handler registered
   * later replaces it (vscode-languageclient 9 also re-installs registered
   * handlers after its own on an automatic restart; registering again after
   * one keeps that true whatever the library version).
   */
  private handleEdits(client: LanguageClient): void {
    client.onRequest(ApplyWorkspaceEditRequest.type, (params) =>
      this.edits.handle(params, client.protocol2CodeConverter),
    );
  }

  private spawn(launch: ServerLaunch): Promise<ChildProcess> {
    this.stderrTail = [];
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return new Promise((resolve, reject) => {
      const child = spawn(launch.command, launch.args, { cwd, env: process.env, stdio: 'pipe' });
      this.process = child;
      this.processClosed = new Promise((resolve) => child.once('close', () => resolve()));
      child.once('spawn', () => resolve(child));
      child.once('error', (error) => reject(error));
      child.stderr?.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        this.output.append(text);
        this.stderrTail.push(...text.split('\n').filter((line) => line.trim() !== ''));
        this.stderrTail.splice(0, Math.max(0, this.stderrTail.length - STDERR_TAIL_LINES));
      });
    });
  }

  /** Waits (a bounded time) until the server process is gone and its stderr fully read. */
  private waitForExit(): Promise<void> {
    return Promise.race([this.processClosed, new Promise<void>((resolve) => setTimeout(resolve, EXIT_WAIT_MS))]);
  }

  private errorHandler(launch: ServerLaunch): ErrorHandler {
    return {
      error: (error, _message, count): ErrorHandlerResult => {
        this.output.appendLine(`Cairn: connection error: ${error.message}`);
        const action = (count ?? 0) <= MAX_TRANSPORT_ERRORS ? ErrorAction.Continue : ErrorAction.Shutdown;
        return { action, handled: true };
      },
      closed: async (): Promise<CloseHandlerResult> => {
        await this.waitForExit();
        if (!this.everRunning) {
          // A server that never came up: start() explains why; retrying will not help.
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        const now = Date.now();
        this.crashes = [...this.crashes.filter((t) => now - t < RESTART_WINDOW_MS), now];
        if (this.crashes.length > MAX_RESTARTS) {
          this.setState('failed');
          this.fail(crashLoopMessage(launch, this.crashes.length, this.stderrTail));
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
    const client = this.client;
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
        this.handleEdits(client);
        this.setState('running');
        this.everRunning = true;
        this.onDidStart.fire();
      } else if (event.newState === State.Stopped && starting && this.client === client) {
        subscription.dispose();
        void this.waitForExit().then(() =>
          this.fail(startFailureMessage(launch, this.stderrTail, this.process?.exitCode ?? null)),
        );
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
