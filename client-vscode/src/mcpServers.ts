/**
 * The "MCP servers" side panel: the focused session's MCP servers as the
 * server reports them (`McpReport`): each server's state, tool count and
 * schema tokens, then its facts (why it is not ready, its MCP revision,
 * restarts, how its last process ended, its notes), its last stderr lines
 * and its tools with their tokens, permission and hints; the view's message
 * is the report's summary (the total against the model's input: offered
 * directly or deferred behind `tool_search`). The sentences are the server's,
 * the same `cairn mcp list` prints. Fed by `cairn/mcpServers` (when the view
 * opens, the servers not started yet start) and every `cairn/mcpStatus`;
 * Restart, Disable and Enable are `cairn/mcpControl`. In Restricted Mode the
 * message starts with why the folder's own servers are missing.
 */
import * as vscode from 'vscode';
import { CairnClient } from './client';
import { Command, View } from './constants';
import { errorText } from './errorText';
import { McpControlParams, McpReport, McpServerView, McpToolView, Method } from './protocol';
import { RESTRICTED_MODE, restricted } from './restrictedMode';

/** A row of the view: a server, one of its facts or stderr lines, or one of its tools. */
export type McpNode =
  | { kind: 'server'; server: McpServerView }
  | { kind: 'fact'; server: string; text: string; error: boolean; index: number }
  | { kind: 'tool'; server: string; tool: McpToolView };

type McpState = McpServerView['state'];
type McpAction = McpControlParams['action'];

const STATE_ICONS: Record<McpState, vscode.ThemeIcon> = {
  'not started': new vscode.ThemeIcon('circle-outline'),
  starting: new vscode.ThemeIcon('loading~spin'),
  ready: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  restarting: new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.yellow')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  disabled: new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground')),
  stopped: new vscode.ThemeIcon('debug-stop'),
};
const TOOL_ICON = new vscode.ThemeIcon('tools');
const FACT_ICON = new vscode.ThemeIcon('info');
const ERROR_ICON = new vscode.ThemeIcon('warning', new vscode.ThemeColor('charts.yellow'));

/** The states in which a server has a reason worth a warning icon. */
const TROUBLED: ReadonlySet<McpState> = new Set(['restarting', 'failed']);

/** "1 tool", "3 tools". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A server's rows: its facts, its last stderr lines (when it is in trouble), its tools. */
export function serverChildren(server: McpServerView): McpNode[] {
  const troubled = TROUBLED.has(server.state) || server.exit !== null;
  const facts = server.facts.map((text, index): McpNode => {
    const error = troubled && (text === server.reason || (server.exit !== null && text.endsWith(server.exit)));
    return { kind: 'fact', server: server.name, text, error, index };
  });
  const stderr = troubled
    ? server.stderr.map((line, i): McpNode => {
        return { kind: 'fact', server: server.name, text: `stderr: ${line}`, error: true, index: facts.length + i };
      })
    : [];
  const tools = server.tools.map((tool): McpNode => ({ kind: 'tool', server: server.name, tool }));
  return [...facts, ...stderr, ...tools];
}

export class McpServersProvider implements vscode.TreeDataProvider<McpNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly treeView: vscode.TreeView<McpNode>;
  private readonly subscriptions: vscode.Disposable[];
  /** The report shown (the tests read it). */
  report: McpReport | undefined;

  /** The view's message, above its rows (the tests read it). */
  get message(): string | undefined {
    return this.treeView.message;
  }

  constructor(private readonly client: CairnClient) {
    // When empty, the view shows its welcome content (package.json `viewsWelcome`).
    this.treeView = vscode.window.createTreeView(View.mcpServers, { treeDataProvider: this });
    this.subscriptions = [
      this.treeView,
      // Opened: start the servers not started yet (lazily, not when VS Code starts).
      this.treeView.onDidChangeVisibility((e) => e.visible && void this.refresh(true)),
      client.onDidStart.event(() => this.treeView.visible && void this.refresh(true)),
      client.onDidChangeSession.event(() => this.treeView.visible && void this.refresh(true)),
      client.onMcpStatus.event((event) => {
        const session = event.server.sessionId;
        if (session === null || session === this.client.sessionId) {
          this.show(event.report);
        } else if (this.treeView.visible) {
          void this.refresh(false);
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.render()),
      vscode.commands.registerCommand(Command.mcpRefresh, () => this.refresh(true)),
      vscode.commands.registerCommand(Command.mcpRestart, (node?: McpNode) => this.control(node, 'restart')),
      vscode.commands.registerCommand(Command.mcpDisable, (node?: McpNode) => this.control(node, 'disable')),
      vscode.commands.registerCommand(Command.mcpEnable, (node?: McpNode) => this.control(node, 'enable')),
    ];
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
    this.changed.dispose();
  }

  getTreeItem(node: McpNode): vscode.TreeItem {
    switch (node.kind) {
      case 'server':
        return serverItem(node.server);
      case 'fact': {
        const item = new vscode.TreeItem(node.text);
        item.id = `${node.server}:fact:${node.index}`;
        item.iconPath = node.error ? ERROR_ICON : FACT_ICON;
        item.tooltip = node.text;
        return item;
      }
      case 'tool': {
        const item = new vscode.TreeItem(node.tool.tool);
        item.id = `${node.server}:tool:${node.tool.name}`;
        item.iconPath = TOOL_ICON;
        item.description = [`${node.tool.tokens} tokens`, ...node.tool.facts].join(' · ');
        item.tooltip = `${node.tool.name}: ${node.tool.tokens} schema tokens; ${node.tool.facts.join(', ')}`;
        item.contextValue = 'mcpTool';
        return item;
      }
    }
  }

  getChildren(node?: McpNode): McpNode[] {
    if (!node) {
      return (this.report?.servers ?? []).map((server): McpNode => ({ kind: 'server', server }));
    }
    return node.kind === 'server' ? serverChildren(node.server) : [];
  }

  /** Shows `name`'s row, expanded on its facts and tools (once the view has drawn the last report). */
  async reveal(name: string): Promise<void> {
    const server = this.report?.servers.find((s) => s.name === name);
    if (server) await this.treeView.reveal({ kind: 'server', server }, { expand: true, focus: false, select: false });
  }

  /** A fact's or tool's server row (`reveal` needs it); servers are top-level. */
  getParent(node: McpNode): McpNode | undefined {
    if (node.kind === 'server') return undefined;
    const server = this.report?.servers.find((s) => s.name === node.server);
    return server ? { kind: 'server', server } : undefined;
  }

  /** Asks the server for the report; `start`: the servers not started yet start first. */
  async refresh(start: boolean): Promise<McpReport | undefined> {
    try {
      const report = await this.client.request(Method.mcpServers, { start });
      this.show(report);
      return report;
    } catch (error) {
      this.treeView.message = errorText(error);
      return undefined;
    }
  }

  /** Restarts, disables or enables the server of `node` (`cairn/mcpControl`). */
  async control(node: McpNode | undefined, action: McpAction): Promise<McpReport | undefined> {
    const name = node?.kind === 'server' ? node.server.name : node?.server;
    if (name === undefined) {
      void vscode.window.showInformationMessage('Cairn: select an MCP server first.');
      return undefined;
    }
    try {
      const report = await this.client.request(Method.mcpControl, { name, action });
      this.show(report);
      return report;
    } catch (error) {
      void vscode.window.showErrorMessage(errorText(error));
      return undefined;
    }
  }

  private show(report: McpReport): void {
    this.report = report;
    this.render();
    this.changed.fire(undefined);
  }

  /** The message: Restricted Mode's sentence, then the report's summary (none without servers: the welcome content says how to add one). */
  private render(): void {
    const servers = this.report?.servers.length ?? 0;
    const parts = [restricted() ? RESTRICTED_MODE : undefined, servers > 0 ? this.report?.summary : undefined];
    const message = parts.filter((part) => part !== undefined).join(' ');
    this.treeView.message = message || undefined;
  }
}

function serverItem(server: McpServerView): vscode.TreeItem {
  // A server in trouble opens on why; a ready one opens on demand.
  const rows = serverChildren(server).length;
  const state = TROUBLED.has(server.state)
    ? vscode.TreeItemCollapsibleState.Expanded
    : vscode.TreeItemCollapsibleState.Collapsed;
  const item = new vscode.TreeItem(server.name, rows > 0 ? state : vscode.TreeItemCollapsibleState.None);
  // A new id when trouble starts or ends: VS Code keeps an id's expansion, and a server that
  // crashes after it was shown collapsed must open on why.
  const troubled = TROUBLED.has(server.state) ? ':troubled' : '';
  item.id = `${server.sessionId ?? ''}:${server.name}${troubled}`;
  item.iconPath = STATE_ICONS[server.state];
  const tokens = server.tools.length > 0 ? [count(server.tools.length, 'tool'), `${server.schemaTokens} tokens`] : [];
  item.description = [server.state, ...tokens].join(' · ');
  item.tooltip = [`${server.name} (${server.transport}): ${server.target}`, ...server.facts].join('\n');
  item.contextValue = `mcpServer.${server.state.replace(' ', '_')}`;
  item.accessibilityInformation = { label: `MCP server ${server.name}, ${server.state}` };
  return item;
}
