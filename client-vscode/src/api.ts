/**
 * What `activate` returns: the extension's parts, for the in-host tests
 * (test/suite) to look at its state.
 */
import { Approvals } from './approvals';
import { ChatPanel } from './chat';
import { CairnClient } from './client';
import { GoalTreeProvider } from './goalTree';
import { KeyStore } from './keys';
import { McpServersProvider } from './mcpServers';
import { EditReviews } from './review';
import { ServerInstaller } from './serverInstall';
import { SessionsProvider } from './sessions';
import { ContextMeter } from './statusBar';

export interface CairnApi {
  client: CairnClient;
  chat: ChatPanel;
  goals: GoalTreeProvider;
  sessions: SessionsProvider;
  mcp: McpServersProvider;
  meter: ContextMeter;
  reviews: EditReviews;
  approvals: Approvals;
  installer: ServerInstaller;
  keys: KeyStore;
  /** Resolves once the first start attempt is over (true: the server is running). */
  ready: Promise<boolean>;
}
