/**
 * Owns the language client: starts `cairn serve` over stdio (with the API keys
 * from VS Code's secret storage in its environment), restarts it, explains
 * why it cannot start, stops a crash loop, applies settings changes live
 * when the server can take them, keeps the focused session across reloads
 * and restarts, and relays the server's custom notifications and its
 * `cairn/approval` requests.
 */
import { ChildProcess, spawn } from 'child_process';
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditRequest,
  ClientCapabilities,
  CloseAction,
  CloseHandlerResult,
  DidChangeConfigurationNotification,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  FeatureState,
  LanguageClient,
  LanguageClientOptions,
  State,
  StaticFeature,
} from 'vscode-languageclient/node';
import { CLIENT_ID, CLIENT_NAME, MAX_RESTARTS, MAX_TRANSPORT_ERRORS, RESTART_WINDOW_MS, STDERR_TAIL_LINES } from './constants';
import { EditApplier, EditReviewer } from './applyEdit';
import {
  ApprovalParams,
  ApprovalResult,
  ClientCapability,
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
import { crashLoopMessage, notFoundMessage, notInstalledMessage, startFailureMessage } from './startErrors';

/** How long to wait for a failed server's exit (and last stderr) before explaining it. */
const EXIT_WAIT_MS = 2000;
/** How long a request waits for a server that is (re)starting. */
const START_WAIT_MS = 30_000;
/** workspaceState key of the focused session (restored after a reload). */
const FOCUSED_SESSION_KEY = 'cairn.focusedSession';

/** `missing`: no server to start (none installed); `failed`: it could not start or crashed. */
export type ClientState = 'stopped' | 'starting' | 'running' | 'failed' | 'missing';

/** Runs a server command (`workspace/executeCommand`) on the extension's terms (`send` sends it, with the arguments given). */
export type CommandInterceptor = (
  args: unknown[],
  send: (args: unknown[]) => Promise<unknown>,
) => Promise<unknown>;

/** Answers the server's `cairn/approval` requests (the chat asks the user inline). */
export type ApprovalHandler = (request: ApprovalParams) => Promise<ApprovalResult>;

/** What the client needs from the extension around it. */
export interface ClientHost {
  /** Where the focused session is remembered (the workspace's state). */
  memento: vscode.Memento;
  /** The server's environment additions (the API keys the user stored). */
  environment(): Promise<Record<string, string>>;
  /** The managed environment's `cairn`, when the extension installed one. */
  managedServer(): string | undefined;
}

/** A language client that keeps its own messages: every user-facing error is shown by CairnClient. */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

/** Declares `capabilities.experimental.cairn.approvals`: this client answers `cairn/approval`. */
class ApprovalsCapability implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    experimental[ClientCapability.section] = { [ClientCapability.approvals]: true };
    capabilities.experimental = experimental;
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
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
  private focused: string | undefined;
  private readonly interceptors = new Map<string, CommandInterceptor>();
  private approvals: ApprovalHandler | undefined;
  /** Applies the server's `workspace/applyEdit` requests and saves them (see applyEdit.ts). */
  readonly edits: EditApplier;

  private currentState: ClientState = 'stopped';
  /** The last error message shown to the user (also read by the tests). */
  lastError: string | undefined;
  /** How the running (or last) server was started. */
  launch: ServerLaunch | undefined;

  readonly onGoalTreeChanged = new vscode.EventEmitter<GoalTreeView>();
  readonly onTurnEvent = new vscode.EventEmitter<TurnEvent>();
  readonly onCompaction = new vscode.EventEmitter<CompactionEvent>();
  readonly onContextStats = new vscode.EventEmitter<ContextStats>();
  /** Fired on every state change (the status bar shows a failed server). */
  readonly onDidChangeState = new vscode.EventEmitter<ClientState>();
  /** Fired each time a server is up and a session is focused (first start and every restart). */
  readonly onDidStart = new vscode.EventEmitter<void>();
  /** Fired when the focused session changes. */
  readonly onDidChangeSession = new vscode.EventEmitter<string | undefined>();

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly host: ClientHost,
  ) {
    this.edits = new EditApplier((line) => output.appendLine(line));
    this.focused = host.memento.get<string>(FOCUSED_SESSION_KEY);
  }

  get state(): ClientState {
    return this.currentState;
  }

  private setState(state: ClientState): void {
    if (state !== this.currentState) {
      this.currentState = state;
      void vscode.commands.executeCommand('setContext', 'cairn.serverState', state);
      this.onDidChangeState.fire(state);
    }
  }

  /** The session every view and request acts on. */
  get sessionId(): string | undefined {
    return this.focused;
  }

  setSession(sessionId: string | undefined): void {
    if (sessionId !== this.focused) {
      this.focused = sessionId;
      void this.host.memento.update(FOCUSED_SESSION_KEY, sessionId);
      this.onDidChangeSession.fire(sessionId);
    }
  }

  /** A new, empty session, focused (the server writes it on its first message). */
  async newSession(): Promise<string> {
    const { sessionId } = await this.requestRaw(Method.newSession, {});
    this.setSession(sessionId);
    return sessionId;
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

  /** Sends the user's server settings to the running server (`workspace/didChangeConfiguration`). */
  async updateSettings(): Promise<void> {
    if (this.client && this.state === 'running') {
      const settings = userServerSettings(vscode.workspace.getConfiguration(CONFIG_SECTION));
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [CONFIG_SECTION]: settings } });
      this.output.appendLine('Cairn: settings sent to the running server.');
    }
  }

  /** A custom request (types from `protocol.ts`); the focused session id is added unless params carry one. */
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

  /** Who answers `cairn/approval` (without one, approvals are rejected). */
  handleApprovals(handler: ApprovalHandler): vscode.Disposable {
    this.approvals = handler;
    return new vscode.Disposable(() => {
      this.approvals = undefined;
    });
  }

  /** Who reviews the agent's edits when review mode is on (see applyEdit.ts). */
  reviewEdits(reviewer: EditReviewer): vscode.Disposable {
    this.edits.reviewer = reviewer;
    return new vscode.Disposable(() => {
      this.edits.reviewer = undefined;
    });
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
    if (this.focused === undefined || 'sessionId' in params) {
      return params;
    }
    return { ...params, sessionId: this.focused };
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
          const send = async (sent: unknown[]): Promise<unknown> => next(command, sent);
          return interceptor ? interceptor(args, send) : send(args);
        },
      },
    };
    const client = new QuietLanguageClient(
      CLIENT_ID,
      CLIENT_NAME,
      () => this.spawn(launch, environment),
      clientOptions,
    );
    client.registerFeature(new ApprovalsCapability());
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
    await this.up(launch);
    return true;
  }

  /** A server is up: make sure the focused session is one it serves, then announce it. */
  private async up(launch: ServerLaunch): Promise<void> {
    this.setState('running');
    this.everRunning = true;
    this.output.appendLine(`Cairn: server started (${launch.display})`);
    await this.ensureSession();
    this.onDidStart.fire();
  }

  /**
   * Keeps the focused session when the server knows it (it is on disk, or this
   * server made it), else focuses a new one: after a reload the chat goes on
   * where it was; a session never written (an empty new chat) does not outlive
   * its server.
   */
  private async ensureSession(): Promise<void> {
    const client = this.client;
    if (!client) {
      return;
    }
    try {
      if (this.focused) {
        await client.sendRequest(Method.goalTree, { sessionId: this.focused });
        return;
      }
    } catch {
      this.output.appendLine(`Cairn: session ${this.focused} is gone; starting a new chat.`);
    }
    try {
      const result: Requests[typeof Method.newSession]['result'] = await client.sendRequest(Method.newSession, {});
      this.setSession(result.sessionId);
    } catch (error) {
      this.output.appendLine(`Cairn: could not open a session: ${String(error)}`);
    }
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
    client.onRequest(Method.approval, (request: ApprovalParams): Promise<ApprovalResult> =>
      this.approvals ? this.approvals(request) : Promise.resolve({ decision: 'reject' }),
    );
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

  /** The server process; its stderr goes to the output channel (the language client writes it) and the tail is kept. */
  private spawn(launch: ServerLaunch, environment: Record<string, string>): Promise<ChildProcess> {
    this.stderrTail = [];
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return new Promise((resolve, reject) => {
      const env = { ...process.env, ...environment };
      const child = spawn(launch.command, launch.args, { cwd, env, stdio: 'pipe' });
      this.process = child;
      this.processClosed = new Promise((resolve) => child.once('close', () => resolve()));
      child.once('spawn', () => resolve(child));
      child.once('error', (error) => reject(error));
      child.stderr?.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
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
        void this.up(launch);
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
