/**
 * The one way an error becomes the text the user reads: its message, prefixed
 * with "Cairn: " unless it already names Cairn. Every error message, tree-view
 * message and chat error row goes through it.
 */

/** An error (or anything thrown) as the sentence shown to the user. */
export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith('Cairn') ? message : `Cairn: ${message}`;
}
