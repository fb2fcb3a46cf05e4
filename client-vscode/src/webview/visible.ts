/**
 * Untrusted text made safe to show: the same rules as the server's `cairn/files/visible.py`.
 * Control characters (C0, C1, DEL), format characters (bidi overrides and isolates such as
 * U+202E, zero-width spaces and joiners, the BOM), line/paragraph separators, surrogates and
 * private-use characters are replaced by their escape (`\r`, `\x1b`, `\u202e`), so the approval
 * card shows exactly what will run.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/gu;
const SHORT: Record<string, string> = { '\r': '\\r', '\n': '\\n', '\t': '\\t' };

function escape(char: string): string {
  if (char in SHORT) return SHORT[char];
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code < 0x10000 ? `\\u${code.toString(16).padStart(4, '0')}` : `\\U${code.toString(16).padStart(8, '0')}`;
}

/** `text` with every hidden character replaced by its escape. */
export function visible(text: string): string {
  return text.replace(HIDDEN, escape);
}
