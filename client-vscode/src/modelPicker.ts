/**
 * `Cairn: Choose Model`: a quick pick of providers and their models from the
 * server's catalogue (`cairn/models`), or any litellm model name typed in;
 * when the provider's key is not set, an input box for it (stored in the
 * secret storage, see keys.ts). The choice becomes the `cairn.model` setting
 * (the workspace's when it sets one, else the user's); a new key restarts the
 * server so its environment has it, a model alone is applied live.
 */
import * as vscode from 'vscode';
import { CairnClient } from './client';
import { KeyStore } from './keys';
import { CatalogProvider, Method, ModelCatalog } from './protocol';
import { CONFIG_SECTION } from './settingKeys';
import { formatTokens } from './statusBar';

const MODEL_KEY = 'model';
const OTHER = '$(edit) Enter a model name…';

interface ProviderItem extends vscode.QuickPickItem {
  provider?: CatalogProvider;
}

/** What a provider's key is: set in the server's environment, stored here, or missing. */
async function keyState(provider: CatalogProvider, keys: KeyStore): Promise<'set' | 'stored' | 'missing'> {
  if (provider.keySet) return 'set';
  return provider.keyEnv && (await keys.has(provider.keyEnv)) ? 'stored' : 'missing';
}

async function pickProvider(catalog: ModelCatalog, keys: KeyStore): Promise<ProviderItem | undefined> {
  const items: ProviderItem[] = [];
  for (const provider of catalog.providers) {
    const state = await keyState(provider, keys);
    const key = state === 'missing' ? `needs ${provider.keyEnv}` : 'key ready';
    items.push({ label: provider.provider, description: `${provider.models.length} models · ${key}`, provider });
  }
  items.push({ label: OTHER, description: 'any litellm provider/model (ollama/…, azure/…)' });
  return vscode.window.showQuickPick(items, {
    title: 'Cairn: choose a model (1/2): provider',
    placeHolder: catalog.current ? `Current: ${catalog.current}` : 'No model configured yet',
    ignoreFocusOut: true,
  });
}

async function pickModel(provider: CatalogProvider, current: string): Promise<string | undefined> {
  const items = provider.models.map((m) => ({
    label: m.model,
    description: [m.contextWindow ? `${formatTokens(m.contextWindow)} context` : '', m.model === current ? 'current' : '']
      .filter(Boolean)
      .join(' · '),
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: `Cairn: choose a model (2/2): ${provider.provider}`,
    placeHolder: 'Type to filter',
    matchOnDescription: true,
    ignoreFocusOut: true,
  });
  return picked?.label;
}

async function askKey(variable: string): Promise<string | undefined> {
  const key = await vscode.window.showInputBox({
    title: `Cairn: ${variable}`,
    prompt: `Your ${variable}. It is kept in VS Code's secret storage and given to the Cairn server in its environment, never written to settings.`,
    password: true,
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() ? undefined : 'Required'),
  });
  return key?.trim() || undefined;
}

/** Writes `cairn.model` where it takes effect: the workspace's value when it has one. */
async function saveModel(model: string): Promise<void> {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const inspected = config.inspect<string>(MODEL_KEY);
  const target =
    inspected?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update(MODEL_KEY, model, target);
}

export class ModelPicker {
  constructor(
    private readonly client: CairnClient,
    private readonly keys: KeyStore,
  ) {}

  /** Whether the server has a model configured (for the welcome views and the chat banner). */
  async configured(): Promise<boolean> {
    const catalog = await this.client.requestRaw(Method.models, {});
    return (catalog.current ?? '').trim() !== '';
  }

  /**
   * Runs the picker; with `model` (and `key`), chooses without asking (tests, links).
   * Resolves to the chosen model, or undefined when the user gave up.
   */
  async choose(model?: string, key?: string): Promise<string | undefined> {
    const catalog = await this.client.requestRaw(Method.models, {});
    let chosen = model;
    let provider = model ? catalog.providers.find((p) => model.startsWith(p.provider + '/')) : undefined;
    if (!chosen) {
      const item = await pickProvider(catalog, this.keys);
      if (!item) return undefined;
      provider = item.provider;
      chosen = provider
        ? await pickModel(provider, catalog.current ?? '')
        : (await vscode.window.showInputBox({ title: 'Cairn: model name', prompt: 'A litellm name: provider/model', ignoreFocusOut: true }))?.trim();
      if (!chosen) return undefined;
    }
    let newKey = false;
    if (provider?.keyEnv && (key !== undefined || (await keyState(provider, this.keys)) === 'missing')) {
      const given = key ?? (await askKey(provider.keyEnv));
      if (!given) return undefined;
      await this.keys.store(provider.keyEnv, given);
      newKey = true;
    }
    await saveModel(chosen);
    await vscode.commands.executeCommand('setContext', 'cairn.modelConfigured', true);
    if (newKey) {
      await this.client.restart();
    }
    void vscode.window.showInformationMessage(
      `Cairn: using ${chosen}${newKey ? `; ${provider?.keyEnv} is kept in VS Code's secret storage` : ''}.`,
    );
    return chosen;
  }
}
