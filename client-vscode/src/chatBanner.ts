/**
 * The banner the chat shows above its prompt while Cairn cannot answer: no
 * server (install one), a server that failed (restart it), or no model yet
 * (choose one); none once Cairn can answer. Also keeps the
 * `cairn.modelConfigured` context key (the Goals view's welcome) up to date.
 */
import * as vscode from 'vscode';
import { CairnClient } from './client';
import { ModelPicker } from './modelPicker';
import { Banner } from './webview/messages';

/** What the chat shows above its prompt in the client's current state (null: nothing). */
export async function chatBanner(cairn: CairnClient, models: ModelPicker): Promise<Banner> {
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
