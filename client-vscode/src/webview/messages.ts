/**
 * The messages between the extension (`src/chat.ts`) and the chat webview
 * (`src/webview/chat.ts`), the one definition both sides compile against.
 *
 * Each direction is a union discriminated by `type`, and each side handles it
 * through a `Handlers` map, so a new message is one new union member that the
 * compiler then asks both sides to handle. Transcript rows are `ChatEntry`s,
 * discriminated by `kind`; rows that change after they are shown (an
 * approval answered, a review decided) carry an `id` and are sent again with
 * the same id to replace the shown one. Nothing here touches the DOM or
 * VS Code (both bundles import it).
 */
import type { ApprovalDecision, ApprovalParams, CompactionEvent, Mode, TurnEvent, TurnResult } from '../protocol';

/** What became of an approval: waiting, answered (the decision), or moot (the turn ended first). */
export type ApprovalState = 'pending' | ApprovalDecision | 'expired';
/** What became of an edit held for review. */
export type ReviewState = 'pending' | 'accepted' | 'rejected' | 'expired';

/** One row of the chat transcript. */
export type ChatEntry =
  | { kind: 'user'; text: string; mode: Mode | null; references: string[] }
  | { kind: 'event'; event: TurnEvent }
  /** A compaction; `turnId` places it in that turn's box (null: between turns). */
  | { kind: 'compaction'; event: CompactionEvent; turnId: string | null }
  | { kind: 'result'; result: TurnResult }
  | { kind: 'stopped' }
  | { kind: 'error'; text: string }
  /** A line from the extension about what it did (a restore, a compaction asked for). */
  | { kind: 'notice'; text: string }
  | { kind: 'approval'; id: string; request: ApprovalParams; state: ApprovalState }
  | { kind: 'review'; id: string; turnId: string | null; path: string; added: number; removed: number; state: ReviewState }
  /** The turn's files were put back to before it (`cairn/restore`). */
  | { kind: 'reverted'; turnIds: string[] };

/** What the chat shows above the prompt when Cairn cannot answer yet. */
export type Banner = { text: string; action: 'installServer' | 'chooseModel' | 'restartServer'; label: string } | null;

/** Extension → webview. */
export type ToWebview =
  /** The whole transcript of the focused session (on load, reload, session change). */
  | { type: 'reset'; entries: ChatEntry[]; busy: boolean; title: string; diffs: string[] }
  /** Rows appended to the transcript, or replacing the shown row with the same id. */
  | { type: 'entries'; entries: ChatEntry[] }
  | { type: 'busy'; busy: boolean }
  /** Workspace-relative paths for `@file` completion. */
  | { type: 'files'; files: string[] }
  /** Put the cursor in the prompt. */
  | { type: 'focus' }
  /** A side-by-side diff is available for this tool call (its edit went through the editor). */
  | { type: 'diff'; callId: string }
  | { type: 'banner'; banner: Banner };

/** Webview → extension. */
export type FromWebview =
  /** The script is wired; send the transcript. */
  | { type: 'ready' }
  | { type: 'send'; text: string; mode: Mode }
  | { type: 'stop' }
  /** The first `@` was typed: send the workspace's files. */
  | { type: 'requestFiles' }
  | { type: 'approve'; id: string; decision: ApprovalDecision }
  | { type: 'review'; id: string; accept: boolean }
  | { type: 'openReview'; id: string }
  | { type: 'restore'; turnId: string; files: boolean; conversation: boolean }
  | { type: 'openDiff'; callId: string }
  | { type: 'copy'; text: string }
  | { type: 'insert'; text: string }
  | { type: 'openLink'; href: string }
  | { type: 'banner'; action: NonNullable<Banner>['action'] };

/** What the webview keeps across reloads (`vscode.getState()`). */
export interface WebviewState {
  mode?: Mode;
}

/** One handler per message type; `R` is what a handler returns. */
export type Handlers<M extends { type: string }, R = void> = {
  [T in M['type']]: (message: Extract<M, { type: T }>) => R;
};

/**
 * Calls the handler of a received message; false (and nothing called) when it is
 * not a message or has a type this side does not know.
 */
export function dispatch<M extends { type: string }>(handlers: Handlers<M, unknown>, message: unknown): boolean {
  if (!isMessage(message) || !Object.prototype.hasOwnProperty.call(handlers, message.type)) {
    return false;
  }
  const handler = handlers[message.type as M['type']] as (message: unknown) => unknown;
  handler(message);
  return true;
}

/** Whether a received value looks like a message (an object with a string `type`). */
export function isMessage(value: unknown): value is { type: string } {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
