/**
 * Entry point: wires the language client (launch and keys: settings.ts, keys.ts), the diagnostics forwarder, the side panels
 * (goals, sessions, MCP servers), the context meter, review mode, inline approvals, the commands and the settings watcher, then
 * starts the server (installOffer.ts) at once where configured, else on first use (startupGate.ts). Returns the API of api.ts.
 */
import * as vscode from 'vscode';
import { CairnApi } from './api';
import { Approvals } from './approvals';
import { ChatPanel, registerAsk } from './chat';
import { chatBanner } from './chatBanner';
import { CairnClient } from './client';
import { registerCommands } from './commands';
import { CLIENT_NAME, Command } from './constants';
import { DiagnosticsForwarder } from './diagnostics';
import { GoalTreeProvider } from './goalTree';
import { firstStart } from './installOffer';
import { KeyStore } from './keys';
import { McpServersProvider } from './mcpServers';
import { ModelPicker } from './modelPicker';
import { EditReviews } from './review';
import { ServerInstaller } from './serverInstall';
import { SessionsProvider } from './sessions';
import { watchSettings, watchTrust } from './settingsChanges';
import { wireStartup } from './startupGate';
import { ContextMeter } from './statusBar';
import { VirtualDocuments } from './virtualDocs';

export type { CairnApi } from './api';
let client: CairnClient | undefined;

export function activate(context: vscode.ExtensionContext): CairnApi {
  const output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  const keys = new KeyStore(context.secrets, context.globalState);
  const installer = new ServerInstaller(context.globalStorageUri, context.extensionPath, (line) => output.appendLine(line));
  const host = { memento: context.workspaceState, environment: () => keys.environment(), managedServer: () => installer.installed() };
  const cairn = (client = new CairnClient(output, host));
  const docs = new VirtualDocuments();
  const reviews = new EditReviews(docs);
  const approvals = new Approvals();
  const models = new ModelPicker(cairn, keys);
  const chat = new ChatPanel(context.extensionUri, cairn, { docs, reviews, approvals, banner: () => chatBanner(cairn, models) });
  const [goals, sessions, mcp] = [new GoalTreeProvider(cairn), new SessionsProvider(cairn), new McpServersProvider(cairn)];
  const meter = new ContextMeter(cairn);
  context.subscriptions.push(
    ...[output, cairn, docs, reviews, approvals, chat, goals, sessions, mcp, meter, new DiagnosticsForwarder(cairn)],
    cairn.reviewEdits((changes) => reviews.review(changes)),
    registerAsk(chat),
    vscode.commands.registerCommand(Command.showOutput, () => output.show(true)),
    ...registerCommands({ client: cairn, chat, docs, models, installer }),
    watchSettings(cairn, () => chat.load()),
    watchTrust(cairn),
  );
  const ready = wireStartup(cairn, () => firstStart(cairn, installer, context.globalState, output), chat.onDidShow.event, context.subscriptions);
  return { client: cairn, chat, goals, sessions, mcp, meter, reviews, approvals, installer, keys, ready };
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
