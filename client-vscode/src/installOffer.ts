/**
 * The server's first start at activation and the offer that follows it when
 * there is none: a managed environment older than the bundled wheel is
 * reinstalled first; then, the first time no server can be found, the user is
 * told so once, with the two ways out (install one, or the walkthrough).
 */
import * as vscode from 'vscode';
import { CairnClient } from './client';
import { Command, WALKTHROUGH } from './constants';
import { ServerInstaller } from './serverInstall';

/** globalState key: the offer was made (it is made once). */
const INSTALL_OFFERED_KEY = 'cairn.installOffered';

/** Starts the server (after refreshing an outdated managed one; a failed refresh is logged); resolves to whether it runs. */
export async function firstStart(
  cairn: CairnClient,
  installer: ServerInstaller,
  state: vscode.Memento,
  output: vscode.OutputChannel,
): Promise<boolean> {
  if (installer.outdated()) {
    await installer.install().then(undefined, (error: unknown) => output.appendLine(String(error)));
  }
  const started = await cairn.start();
  void offerInstall(cairn, state);
  return started;
}

/** The first time no server can be found: say so once, with the two ways out. */
async function offerInstall(cairn: CairnClient, state: vscode.Memento): Promise<void> {
  if (cairn.state !== 'missing' || state.get<boolean>(INSTALL_OFFERED_KEY)) return;
  await state.update(INSTALL_OFFERED_KEY, true);
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
