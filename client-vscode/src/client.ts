/**
 * The extension's one handle on the server: starts, stops and restarts it
 * (serverLifecycle.ts), sends requests, notifications and commands on the
 * focused session (sessionFocus.ts), applies settings changes live when the
 * server can take them, and relays the server's custom notifications, its
 * `cairn/approval` requests and its edits (applyEdit.ts) to the views.
 */
import * as vscode from 'vscode';
import { ApplyWorkspaceEditRequest, DidChangeConfigurationNotification, LanguageClient } from 'vscode-languageclient/node';
import { EditApplier, EditReviewer } from './applyEdit';
import { CommandInterceptor } from './languageClient';
import {
  ApprovalParams,
  ApprovalResult,
  ClientNotifications,
  CommandResults,
  CompactionEvent,
  ContextStats,
  GoalTreeView,
  McpStatusEvent,
  Method,
  Requests,
  ServerNotifications,
  TurnEvent,
} from './protocol';
import { ClientState, ServerLifecycle } from './serverLifecycle';
import { SessionFocus } from './sessionFocus';
import { CONFIG_SECTION } from './settingKeys';
import { ServerLaunch, userServerSettings } from './settings';

/** How long a request waits for a server that is (re)starting. */
const START_WAIT_MS = 30_000;

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

export class CairnClient implements vscode.Disposable {
  private readonly server: ServerLifecycle;
  private readonly session: SessionFocus;
  private readonly interceptors = new Map<string, CommandInterceptor>();
  private approvals: ApprovalHandler | undefined;
  /** Applies the server's `workspace/applyEdit` requests and saves them (see applyEdit.ts). */
  readonly edits: EditApplier;

  readonly onGoalTreeChanged = new vscode.EventEmitter<GoalTreeView>();
  readonly onTurnEvent = new vscode.EventEmitter<TurnEvent>();
  readonly onCompaction = new vscode.EventEmitter<CompactionEvent>();
  readonly onContextStats = new vscode.EventEmitter<ContextStats>();
  readonly onMcpStatus = new vscode.EventEmitter<McpStatusEvent>();
  /** Fired on every state change (the status bar shows a failed server). */
  readonly onDidChangeState: vscode.EventEmitter<ClientState>;
  /** Fired each time a server is up and a session is focused (first start and every restart). */
  readonly onDidStart = new vscode.EventEmitter<void>();
  /** Set while the first start waits for the user (startupGate.ts): a request starts the server and waits for it. */
  startOnDemand: (() => Promise<unknown>) | undefined;
  /** Fired when the focused session changes. */
  readonly onDidChangeSession: vscode.EventEmitter<string | undefined>;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    host: ClientHost,
  ) {
    this.edits = new EditApplier((line) => output.appendLine(line));
    this.session = new SessionFocus(host.memento, (line) => output.appendLine(line));
    this.onDidChangeSession = this.session.onDidChange;
    this.server = new ServerLifecycle(output, {
      environment: () => host.environment(),
      managedServer: () => host.managedServer(),
      interceptor: (command) => this.interceptors.get(command),
      subscribe: (client) => this.subscribe(client),
      running: (client) => this.handleEdits(client),
      up: async () => {
        await this.session.ensure(this.server.client);
        this.onDidStart.fire();
      },
    });
    this.onDidChangeState = this.server.onDidChangeState;
  }

  get state(): ClientState {
    return this.server.state;
  }

  /** The last error message shown to the user (also read by the tests). */
  get lastError(): string | undefined {
    return this.server.lastError;
  }

  /** How the running (or last) server was started. */
  get launch(): ServerLaunch | undefined {
    return this.server.launch;
  }

  /** The session every view and request acts on. */
  get sessionId(): string | undefined {
    return this.session.id;
  }

  setSession(sessionId: string | undefined): void {
    this.session.set(sessionId);
  }

  /** A new, empty session, focused (the server writes it on its first message). */
  async newSession(): Promise<string> {
    const { sessionId } = await this.requestRaw(Method.newSession, {});
    this.setSession(sessionId);
    return sessionId;
  }

  /** Starts the server; resolves to whether it is running. Never throws. */
  start(): Promise<boolean> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  /** A fresh server with the current settings (the crash counter is reset). */
  restart(): Promise<boolean> {
    return this.server.restart();
  }

  /** Sends the user's server settings to the running server (`workspace/didChangeConfiguration`). */
  async updateSettings(): Promise<void> {
    const client = this.server.client;
    if (client && this.state === 'running') {
      const settings = userServerSettings(vscode.workspace.getConfiguration(CONFIG_SECTION));
      await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [CONFIG_SECTION]: settings } });
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
    const withSession = this.session.withSession(params);
    return token ? client.sendRequest(method, withSession, token) : client.sendRequest(method, withSession);
  }

  /** A request sent exactly as given (no session id added). */
  async requestRaw<M extends keyof Requests>(method: M, params: Requests[M]['params']): Promise<Requests[M]['result']> {
    return (await this.requireClient()).sendRequest(method, params);
  }

  async notify<M extends keyof ClientNotifications>(method: M, params: ClientNotifications[M]): Promise<void> {
    const client = this.server.client;
    if (client && this.state === 'running') {
      await client.sendNotification(method, params);
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
    this.server.dispose();
    this.onGoalTreeChanged.dispose();
    this.onTurnEvent.dispose();
    this.onCompaction.dispose();
    this.onContextStats.dispose();
    this.onMcpStatus.dispose();
    this.onDidStart.dispose();
    this.session.dispose();
  }

  /** The running client; while a (re)start is under way, waits for it (a bounded time). */
  private async requireClient(): Promise<LanguageClient> {
    if (this.state === 'stopped' && this.startOnDemand) await this.startOnDemand();
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
    const client = this.server.client;
    if (!client || this.state !== 'running') {
      throw new Error(this.lastError ?? 'Cairn: the server is not running (run "Cairn: Restart Server").');
    }
    return client;
  }

  /** The server's custom notifications to the emitters, its `cairn/approval` requests to the handler. */
  private subscribe(client: LanguageClient): void {
    const on = <M extends keyof ServerNotifications>(method: M, fire: (params: ServerNotifications[M]) => void): void => {
      client.onNotification(method, fire);
    };
    on(Method.goalTreeChanged, (p) => this.onGoalTreeChanged.fire(p));
    on(Method.turnEvent, (p) => this.onTurnEvent.fire(p));
    on(Method.compaction, (p) => this.onCompaction.fire(p));
    on(Method.contextStatsChanged, (p) => this.onContextStats.fire(p));
    on(Method.mcpStatus, (p) => this.onMcpStatus.fire(p));
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
}
