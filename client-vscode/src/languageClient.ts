/**
 * The vscode-languageclient client for one launch of the server: it shows no
 * error popups of its own (CairnClient shows every user-facing error),
 * declares `capabilities.experimental.cairn.approvals` (it answers
 * `cairn/approval`), sends the user's server settings and the folder's
 * Workspace Trust (`workspaceTrusted`) as `initializationOptions`, watches the workspace's files and runs every
 * server command through the extension's interceptor for it, if any.
 */
import { ChildProcess } from 'child_process';
import * as vscode from 'vscode';
import {
  ClientCapabilities,
  ErrorHandler,
  FeatureState,
  LanguageClient,
  LanguageClientOptions,
  StaticFeature,
} from 'vscode-languageclient/node';
import { CLIENT_ID, CLIENT_NAME } from './constants';
import { ClientCapability } from './protocol';
import { userServerSettings } from './settings';

/** Runs a server command (`workspace/executeCommand`) on the extension's terms (`send` sends it, with the arguments given). */
export type CommandInterceptor = (
  args: unknown[],
  send: (args: unknown[]) => Promise<unknown>,
) => Promise<unknown>;

/** What one language client is made of. */
export interface ClientParts {
  output: vscode.LogOutputChannel;
  /** The `cairn` configuration section at start. */
  config: vscode.WorkspaceConfiguration;
  errorHandler: ErrorHandler;
  /** Starts the server process the client talks to. */
  spawn(): Promise<ChildProcess>;
  /** The interceptor registered for a server command, if any. */
  interceptor(command: string): CommandInterceptor | undefined;
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

/** A new (not yet started) client for the server `parts.spawn` starts. */
export function createLanguageClient(parts: ClientParts): LanguageClient {
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }],
    // Read at each start: the folder's Workspace Trust is the server's word on trust.
    initializationOptions: () => ({
      ...userServerSettings(parts.config),
      workspaceTrusted: vscode.workspace.isTrusted,
    }),
    outputChannel: parts.output,
    errorHandler: parts.errorHandler,
    initializationFailedHandler: (error) => {
      parts.output.appendLine(`Cairn: initialize failed: ${String(error)}`);
      return false;
    },
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*') },
    middleware: {
      executeCommand: (command, args, next) => {
        const interceptor = parts.interceptor(command);
        const send = async (sent: unknown[]): Promise<unknown> => next(command, sent);
        return interceptor ? interceptor(args, send) : send(args);
      },
    },
  };
  const client = new QuietLanguageClient(CLIENT_ID, CLIENT_NAME, () => parts.spawn(), clientOptions);
  client.registerFeature(new ApprovalsCapability());
  return client;
}
