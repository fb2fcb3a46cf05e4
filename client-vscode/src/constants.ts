/**
 * The extension's own names and numbers: view ids, command ids (package.json)
 * and the client's tuning numbers. What the server defines is generated from
 * it: method and server-command names and wire types in `protocol.ts`,
 * configuration keys in `settingKeys.ts` (`python -m tools.gen_contracts`).
 */

/** View container and view ids (package.json `viewsContainers` / `views`). */
export const View = {
  container: 'cairn',
  goals: 'cairn.goals',
  sessions: 'cairn.sessions',
  mcpServers: 'cairn.mcpServers',
  chat: 'cairn.chat',
} as const;

/** Extension command ids (package.json `contributes.commands`). */
export const Command = {
  ask: 'cairn.ask',
  newChat: 'cairn.newChat',
  chooseModel: 'cairn.chooseModel',
  installServer: 'cairn.installServer',
  locateServer: 'cairn.locateServer',
  tryOnFile: 'cairn.tryOnFile',
  showOutput: 'cairn.showOutput',
  reviewAccept: 'cairn.review.accept',
  reviewReject: 'cairn.review.reject',
  fixAtCursor: 'cairn.fixAtCursor',
  compactNow: 'cairn.compactNow',
  forkSession: 'cairn.forkSession',
  showManifest: 'cairn.showManifest',
  showTrace: 'cairn.showTrace',
  restartServer: 'cairn.restartServer',
  goalsAdd: 'cairn.goals.add',
  goalsRefresh: 'cairn.goals.refresh',
  goalFocus: 'cairn.goal.focus',
  goalDone: 'cairn.goal.done',
  goalAbandon: 'cairn.goal.abandon',
  goalAddSub: 'cairn.goal.addSub',
  sessionsRefresh: 'cairn.sessions.refresh',
  sessionOpen: 'cairn.session.open',
  sessionFork: 'cairn.session.fork',
  sessionDelete: 'cairn.session.delete',
  mcpRefresh: 'cairn.mcp.refresh',
  mcpRestart: 'cairn.mcp.restart',
  mcpDisable: 'cairn.mcp.disable',
  mcpEnable: 'cairn.mcp.enable',
} as const;

/** Names used for the language client and its output channel. */
export const CLIENT_ID = 'cairn';
export const CLIENT_NAME = 'Cairn';

/** Diagnostics changes are batched for this long before they are forwarded. */
export const DIAGNOSTICS_DEBOUNCE_MS = 150;

/** Crash loop guard: stop restarting after this many crashes within the window. */
export const MAX_RESTARTS = 4;
export const RESTART_WINDOW_MS = 3 * 60 * 1000;

/** Transport errors tolerated before the connection is shut down. */
export const MAX_TRANSPORT_ERRORS = 3;

/** Lines of the server's stderr kept to explain a failed start. */
export const STDERR_TAIL_LINES = 20;

/** `@file` completion: at most this many workspace files are offered. */
export const MAX_FILE_COMPLETIONS = 2000;
export const FILE_COMPLETION_EXCLUDE = '**/{node_modules,.git,.cairn,.venv,dist,out}/**';

/** The status bar and the chat round token counts to thousands from this size on. */
export const TOKENS_PER_K = 1000;

/** The chat transcript keeps at most this many events (oldest dropped). */
export const MAX_TRANSCRIPT_EVENTS = 5000;

/** The walkthrough (package.json `contributes.walkthroughs`), as `<publisher>.<name>#<id>`. */
export const WALKTHROUGH = 'cairn-dev.cairn#cairn.firstRun';
