/**
 * Entry point: wires the language client, the diagnostics forwarder, the
 * side panels, the context meter and the commands. Returns the API the
 * in-host tests use to look at the extension's state.
 */
import * as vscode from 'vscode';
import { ChatPanel, registerAsk } from './chat';
import { CairnClient } from './client';
import { registerCommands } from './commands';
import { CLIENT_NAME } from './constants';
import { CONFIG_SECTION } from './settingKeys';
import { DiagnosticsForwarder } from './diagnostics';
import { GoalTreeProvider } from './goalTree';
import { SessionsProvider } from './sessions';
import { needsRestart } from './settings';
import { ContextMeter } from './statusBar';

export interface CairnApi {
  client: CairnClient;
  chat: ChatPanel;
  goals: GoalTreeProvider;
  sessions: SessionsProvider;
  meter: ContextMeter;
  /** Resolves once the first start attempt is over (true: the server is running). */
  ready: Promise<boolean>;
}

let client: CairnClient | undefined;

export function activate(context: vscode.ExtensionContext): CairnApi {
  // A log channel: VS Code also keeps it as a file in the window's log folder.
  const output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  client = new CairnClient(output);
  const chat = new ChatPanel(context.extensionUri, client);
  const goals = new GoalTreeProvider(client);
  const sessions = new SessionsProvider(client);
  const meter = new ContextMeter(client);
  context.subscriptions.push(
    output,
    client,
    chat,
    goals,
    sessions,
    meter,
    new DiagnosticsForwarder(client),
    registerAsk(chat),
    ...registerCommands(client, chat),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(CONFIG_SECTION) && needsRestart(event)) {
        void client?.restart();
      }
    }),
  );
  return { client, chat, goals, sessions, meter, ready: client.start() };
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
