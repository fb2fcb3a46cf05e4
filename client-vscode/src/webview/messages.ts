/**
 * The messages between the extension (`src/chat.ts`) and the chat webview
 * (`src/webview/chat.ts`), the one definition both sides compile against.
 *
 * Each direction is a union discriminated by `type`, and each side handles it
 * through a `Handlers` map, so a new message (an inline approval, rendered
 * markdown) is one new union member that the compiler then asks both sides
 * to handle. Transcript rows are `ChatEntry`s, discriminated by `kind`.
 * Nothing here touches the DOM or VS Code (both bundles import it).
 */
import type { CompactionEvent, Mode, TurnEvent, TurnResult } from '../protocol';

/** One row of the chat transcript. */
export type ChatEntry =
  | { kind: 'user'; text: string; mode: Mode; references: string[] }
  | { kind: 'event'; event: TurnEvent }
  | { kind: 'compaction'; event: CompactionEvent }
  | { kind: 'result'; result: TurnResult }
  | { kind: 'stopped' }
  | { kind: 'error'; text: string };

/** Extension → webview. */
export type ToWebview =
  /** The whole transcript (when the view is (re)loaded) and whether a turn runs. */
  | { type: 'reset'; entries: ChatEntry[]; busy: boolean }
  /** Rows appended to the transcript. */
  | { type: 'entries'; entries: ChatEntry[] }
  | { type: 'busy'; busy: boolean }
  /** Workspace-relative paths for `@file` completion. */
  | { type: 'files'; files: string[] }
  /** Put the cursor in the prompt. */
  | { type: 'focus' };

/** Webview → extension. */
export type FromWebview =
  /** The script is wired; send the transcript. */
  | { type: 'ready' }
  | { type: 'send'; text: string; mode: Mode }
  | { type: 'stop' }
  /** The first `@` was typed: send the workspace's files. */
  | { type: 'requestFiles' };

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
