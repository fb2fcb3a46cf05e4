/**
 * Providers' API keys the user gives the extension: kept in VS Code's
 * SecretStorage (the OS keychain), never in settings or files, and handed to
 * the server in its environment under the variable the provider reads
 * (`ANTHROPIC_API_KEY`...). SecretStorage cannot list its entries, so the
 * variable names are kept in the global state beside them.
 */
import * as vscode from 'vscode';

const SECRET_PREFIX = 'cairn.apiKey.';
const NAMES_KEY = 'cairn.apiKeyNames';

export class KeyStore {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly state: vscode.Memento,
  ) {}

  private names(): string[] {
    return this.state.get<string[]>(NAMES_KEY) ?? [];
  }

  async has(variable: string): Promise<boolean> {
    return (await this.secrets.get(SECRET_PREFIX + variable)) !== undefined;
  }

  async store(variable: string, key: string): Promise<void> {
    await this.secrets.store(SECRET_PREFIX + variable, key);
    if (!this.names().includes(variable)) {
      await this.state.update(NAMES_KEY, [...this.names(), variable]);
    }
  }

  async forget(variable: string): Promise<void> {
    await this.secrets.delete(SECRET_PREFIX + variable);
    await this.state.update(
      NAMES_KEY,
      this.names().filter((name) => name !== variable),
    );
  }

  /** `{VARIABLE: key}` for every stored key: the server's environment additions. */
  async environment(): Promise<Record<string, string>> {
    const env: Record<string, string> = {};
    for (const name of this.names()) {
      const key = await this.secrets.get(SECRET_PREFIX + name);
      if (key) env[name] = key;
    }
    return env;
  }
}
