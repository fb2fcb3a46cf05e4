/**
 * The chat's rows of a session: rebuilt from the server's transcript
 * (`cairn/transcript`) after a reload or a session change, in the same rows
 * the live events make, and kept bounded. Pure: no VS Code API.
 */
import { MAX_TRANSCRIPT_EVENTS } from './constants';
import { Transcript, TranscriptTurn } from './protocol';
import { ChatEntry } from './webview/messages';

const INTERRUPTED = 'interrupted: the process running this turn ended before the turn did';

function turnEntries(sessionId: string, turn: TranscriptTurn): ChatEntry[] {
  const entries: ChatEntry[] = [
    { kind: 'user', text: turn.message, mode: turn.mode, references: turn.references },
  ];
  const compactions = [...turn.compactions].sort((a, b) => a.at - b.at);
  let next = 0;
  const placeCompactions = (upTo: number): void => {
    while (next < compactions.length && compactions[next].at <= upTo) {
      entries.push({ kind: 'compaction', event: compactions[next].event, turnId: turn.turnId });
      next++;
    }
  };
  turn.events.forEach((event, index) => {
    placeCompactions(index);
    entries.push({ kind: 'event', event });
  });
  placeCompactions(Number.POSITIVE_INFINITY);
  if (turn.finishReason !== null) {
    entries.push({
      kind: 'result',
      result: {
        sessionId,
        turnId: turn.turnId,
        // An interrupted turn (its process died) is shown as failed, with why.
        finishReason: turn.finishReason === 'interrupted' ? 'error' : turn.finishReason,
        text: '',
        usage: turn.usage,
        error: turn.finishReason === 'interrupted' ? (turn.error ?? INTERRUPTED) : turn.error,
        changedFiles: turn.changedFiles,
      },
    });
  }
  return entries;
}

/** The rows of a whole transcript, oldest first. */
export function transcriptEntries(transcript: Transcript): ChatEntry[] {
  const entries = transcript.turns.flatMap((turn) => turnEntries(transcript.sessionId, turn));
  const reverted = transcript.turns.filter((turn) => turn.reverted).map((turn) => turn.turnId);
  if (reverted.length > 0) {
    entries.push({ kind: 'reverted', turnIds: reverted });
  }
  return bounded(entries);
}

/** The rows of an entry that replace an earlier one with the same id (approvals, reviews). */
function idOf(entry: ChatEntry): string | undefined {
  return entry.kind === 'approval' || entry.kind === 'review' ? entry.id : undefined;
}

/** Adds `entry` to `entries` (replacing the row with its id, if any); returns the array. */
export function addEntry(entries: ChatEntry[], entry: ChatEntry): ChatEntry[] {
  const id = idOf(entry);
  const index = id === undefined ? -1 : entries.findIndex((e) => idOf(e) === id);
  if (index >= 0) {
    entries[index] = entry;
  } else {
    entries.push(entry);
  }
  if (entries.length > MAX_TRANSCRIPT_EVENTS) {
    entries.splice(0, entries.length - MAX_TRANSCRIPT_EVENTS);
  }
  return entries;
}

function bounded(entries: ChatEntry[]): ChatEntry[] {
  return entries.length > MAX_TRANSCRIPT_EVENTS ? entries.slice(-MAX_TRANSCRIPT_EVENTS) : entries;
}
