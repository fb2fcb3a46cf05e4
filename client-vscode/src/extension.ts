/**
 * Entry point: wires the language client (its launch: the user's settings,
 * PATH, or the managed environment; its keys from the secret storage), the
 * diagnostics forwarder, the side panels, the context meter, review mode,
 * inline approvals and the commands; applies settings changes live or
 * restarts the server when it must; on a first run without a server, offers
 * to install one. Returns the API the in-host tests use to look at the
 * extension's state.
 */
import * as vscode from 'vscode';
import { Approvals } from './approvals';
import { ChatPanel, registerAsk } from './chat';
import { CairnClient } from './client';
import { registerCommands } from './commands';
import { CLIENT_NAME, Command, WALKTHROUGH } from './constants';
import { DiagnosticsForwarder } from './diagnostics';
import { GoalTreeProvider } from './goalTree';
import { KeyStore } from './keys';
import { ModelPicker } from './modelPicker';
import { EditReviews } from './review';
import { ServerInstaller } from './serverInstall';
import { SessionsProvider } from './sessions';
import { CONFIG_SECTION } from './settingKeys';
import { settingsChange } from './settings';
import { ContextMeter } from './statusBar';
import { VirtualDocuments } from './virtualDocs';
import { Banner } from './webview/messages';

export interface CairnApi {
  client: CairnClient;
  chat: ChatPanel;
  goals: GoalTreeProvider;
  sessions: SessionsProvider;
  meter: ContextMeter;
  reviews: EditReviews;
  approvals: Approvals;
  installer: ServerInstaller;
  keys: KeyStore;
  /** Resolves once the first start attempt is over (true: the server is running). */
  ready: Promise<boolean>;
}

let client: CairnClient | undefined;

/** What the chat shows above its prompt while Cairn cannot answer. */
async function banner(cairn: CairnClient, models: ModelPicker): Promise<Banner> {
  if (cairn.state === 'missing') {
    return { text: 'Cairn needs its server.', action: 'installServer', label: 'Install the Cairn server' };
  }
  if (cairn.state === 'failed') {
    return { text: cairn.lastError ?? 'The Cairn server is not running.', action: 'restartServer', label: 'Restart the server' };
  }
  if (cairn.state !== 'running') return null;
  const configured = await models.configured();
  void vscode.commands.executeCommand('setContext', 'cairn.modelConfigured', configured);
  return configured ? null : { text: 'Cairn has no model yet.', action: 'chooseModel', label: 'Choose a model' };
}

/** The first time no server can be found: say so once, with the two ways out. */
async function offerInstall(cairn: CairnClient, state: vscode.Memento): Promise<void> {
  const asked = 'cairn.installOffered';
  if (cairn.state !== 'missing' || state.get<boolean>(asked)) return;
  await state.update(asked, true);
  const choice = await vscode.window.showInformationMessage(
    'Cairn needs its language server. Install it into an environment the extension manages?',
    'Install',
    'Get Started',
  );
  if (choice === 'Install') {
    await vscode.commands.executeCommand(Command.installServer);
  } else if (choice === 'Get Started') {
    await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
  }
}

export function activate(context: vscode.ExtensionContext): CairnApi {
  // A log channel: VS Code also keeps it as a file in the window's log folder.
  const output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  const keys = new KeyStore(context.secrets, context.globalState);
  const installer = new ServerInstaller(context.globalStorageUri, context.extensionPath, (line) => output.appendLine(line));
  client = new CairnClient(output, {
    memento: context.workspaceState,
    environment: () => keys.environment(),
    managedServer: () => installer.installed(),
  });
  const cairn = client;
  const docs = new VirtualDocuments();
  const reviews = new EditReviews(docs);
  const approvals = new Approvals();
  const models = new ModelPicker(cairn, keys);
  const chat = new ChatPanel(context.extensionUri, cairn, { docs, reviews, approvals, banner: () => banner(cairn, models) });
  const goals = new GoalTreeProvider(cairn);
  const sessions = new SessionsProvider(cairn);
  const meter = new ContextMeter(cairn);
  context.subscriptions.push(
    output,
    cairn,
    docs,
    reviews,
    approvals,
    chat,
    goals,
    sessions,
    meter,
    new DiagnosticsForwarder(cairn),
    cairn.reviewEdits((changes) => reviews.review(changes)),
    registerAsk(chat),
    vscode.commands.registerCommand(Command.showOutput, () => output.show(true)),
    ...registerCommands({ client: cairn, chat, docs, models, installer }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration(CONFIG_SECTION)) return;
      const change = settingsChange(event);
      if (change === 'restart' || (change === 'update' && cairn.state !== 'running')) {
        void cairn.restart();
      } else if (change === 'update') {
        void cairn.updateSettings().then(() => chat.load());
      }
    }),
  );
  const ready = (async () => {
    if (installer.outdated()) {
      await installer.install().then(undefined, (error: unknown) => output.appendLine(String(error)));
    }
    const started = await cairn.start();
    void offerInstall(cairn, context.globalState);
    return started;
  })();
  return { client: cairn, chat, goals, sessions, meter, reviews, approvals, installer, keys, ready };
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
