/**
 * Applies the server's `workspace/applyEdit` requests AND saves them, after
 * the user's review when review mode holds them.
 *
 * VS Code applies a workspace edit to the text model and leaves the document
 * dirty, also for a file that was not open. The agent then runs commands
 * (tests) on the files on disk, which would still hold the old text. So every
 * document the edit touches that was not dirty before is saved right after
 * the edit; a document with the user's unsaved changes stays unsaved (the
 * edit is applied on top of them) and the log says so.
 *
 * Every server edit is saved, not only the agent's: the server is ours and
 * applyEdit is how it changes files, so the file on disk is always the one it
 * meant to write. The agent's own edits (label `EditLabel.agent`) first go to
 * the `reviewer` when there is one: it sees each file's text before and
 * after, and a rejected edit is answered `applied: false` with the reason (the
 * agent is told; nothing changes). A review takes time and the user may type
 * meanwhile: after it, each document's version is checked again, and a
 * document that changed gets the edit re-based on its new text (`rebaseEdits`:
 * the same ranges, moved by what was typed before them) when the text of the
 * edited ranges is unchanged; otherwise nothing is applied and the agent is
 * told why (`CHANGED_IN_REVIEW`). Checkpoint restores (`EditLabel.restore`)
 * are never held. Each applied edit is reported (`onDidApply`) with both
 * texts, so the chat can offer a diff of it.
 */
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditResult,
  Protocol2CodeConverter,
  TextDocumentEdit,
} from 'vscode-languageclient/node';
import { EditLabel } from './protocol';

const VERSION_MISMATCH = 'the document changed since the server read it (version mismatch)';
const NOT_APPLIED = 'VS Code did not apply the edit';
export const REJECTED = 'the user rejected the edit in review';
export const CHANGED_IN_REVIEW =
  'the text the edit replaces changed while the edit was in review, so nothing was applied (read the file again and redo the edit)';

/** One file's change: its text before and after the edit. */
export interface FileChange {
  uri: vscode.Uri;
  before: string;
  after: string;
  /** Whether the file did not exist before. */
  created: boolean;
  /** The document's version when `before` was read (undefined: not a document then). */
  version?: number;
  /** The user changed the document during the review (so it is the user's to save). */
  typedInReview?: boolean;
}

/** An edit as offsets into a text (UTF-16): replace `[start, end)` by `newText`. */
export interface OffsetEdit {
  start: number;
  end: number;
  newText: string;
}

/**
 * `edits` of `before` moved onto `now`, the same text after the user changed it: the
 * change is the span between the longest common head and tail of the two texts; an edit
 * wholly before it keeps its offsets, one wholly after it moves by the change's length.
 * Undefined when the change touches an edited range (its text is no longer what the edit
 * replaces, or the edit's place is ambiguous).
 */
export function rebaseEdits(before: string, now: string, edits: readonly OffsetEdit[]): OffsetEdit[] | undefined {
  if (before === now) return [...edits];
  const limit = Math.min(before.length, now.length);
  let head = 0;
  while (head < limit && before.charCodeAt(head) === now.charCodeAt(head)) head++;
  let tail = 0;
  while (tail < limit - head && before.charCodeAt(before.length - 1 - tail) === now.charCodeAt(now.length - 1 - tail)) tail++;
  const changedEnd = before.length - tail;
  const shift = now.length - before.length;
  const moved: OffsetEdit[] = [];
  for (const edit of edits) {
    if (edit.end <= head && edit.end < changedEnd) {
      moved.push(edit);
    } else if (edit.start >= changedEnd && edit.start > head) {
      moved.push({ start: edit.start + shift, end: edit.end + shift, newText: edit.newText });
    } else {
      return undefined;
    }
  }
  return moved;
}

/** Decides about an agent edit before it is applied: true to apply it. */
export type EditReviewer = (changes: FileChange[]) => Promise<boolean>;

/** An applied edit and whose it was. */
export interface AppliedEdit {
  label: string | undefined;
  changes: FileChange[];
}

/** `text` with `edits` applied (ranges of the original text; they must not overlap). */
export function applyTextEdits(text: string, edits: readonly vscode.TextEdit[], offsetAt: (p: vscode.Position) => number): string {
  const sorted = [...edits].sort((a, b) => offsetAt(b.range.start) - offsetAt(a.range.start));
  let result = text;
  for (const edit of sorted) {
    result = result.slice(0, offsetAt(edit.range.start)) + edit.newText + result.slice(offsetAt(edit.range.end));
  }
  return result;
}

/** The offset of a position in `text` (UTF-16, as VS Code counts). */
export function offsetIn(text: string): (position: vscode.Position) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\n') starts.push(i + 1);
  }
  return (position) => {
    const line = Math.min(position.line, starts.length - 1);
    const lineEnd = line + 1 < starts.length ? starts[line + 1] : text.length;
    return Math.min(starts[line] + position.character, lineEnd);
  };
}

/** Applies server edits one after the other (the dirty snapshot of one edit is not raced by the next). */
export class EditApplier {
  private queue: Promise<unknown> = Promise.resolve();
  /** Holds the agent's edits for the user's decision (review mode); none: apply at once. */
  reviewer: EditReviewer | undefined;
  private readonly applied = new vscode.EventEmitter<AppliedEdit>();
  readonly onDidApply = this.applied.event;

  constructor(private readonly log: (line: string) => void) {}

  /**
   * The `workspace/applyEdit` handler: the language client's own checks
   * (`p2c`: the client's protocol converter), the review, then apply and save.
   */
  handle(params: ApplyWorkspaceEditParams, p2c: Protocol2CodeConverter): Promise<ApplyWorkspaceEditResult> {
    const job = (): Promise<ApplyWorkspaceEditResult> => this.apply(params, p2c);
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async apply(params: ApplyWorkspaceEditParams, p2c: Protocol2CodeConverter): Promise<ApplyWorkspaceEditResult> {
    let converted = await p2c.asWorkspaceEdit(params.edit);
    if (this.versionMismatch(params, p2c)) {
      return { applied: false, failureReason: VERSION_MISMATCH };
    }
    let changes = await this.changesOf(converted);
    if (params.label === EditLabel.agent && this.reviewer) {
      if (!(await this.reviewer(changes))) {
        this.log(`Cairn: ${changes.map((c) => vscode.workspace.asRelativePath(c.uri)).join(', ')}: ${REJECTED}.`);
        return { applied: false, failureReason: REJECTED };
      }
      const rebased = await this.afterReview(converted, changes);
      if (typeof rebased === 'string') {
        this.log(`Cairn: ${rebased}.`);
        return { applied: false, failureReason: rebased };
      }
      [converted, changes] = [rebased.edit, rebased.changes];
    }
    const affected = converted.entries().map(([uri]) => uri);
    // A document typed into during the review counts too: its dirty flag may not have
    // reached this extension host yet.
    const dirtyBefore = new Set([
      ...vscode.workspace.textDocuments.filter((doc) => doc.isDirty).map((doc) => doc.uri.toString()),
      ...changes.filter((c) => c.typedInReview).map((c) => c.uri.toString()),
    ]);
    let applied: boolean;
    try {
      applied = await vscode.workspace.applyEdit(converted);
    } catch (error) {
      return { applied: false, failureReason: `${NOT_APPLIED}: ${String(error)}` };
    }
    if (!applied) {
      return { applied: false, failureReason: NOT_APPLIED };
    }
    for (const uri of affected) {
      await this.save(uri, dirtyBefore.has(uri.toString()), params.label);
    }
    this.applied.fire({ label: params.label, changes });
    return { applied: true };
  }

  /** Each file's text before and after the edit (computed, nothing applied). */
  private async changesOf(edit: vscode.WorkspaceEdit): Promise<FileChange[]> {
    const changes: FileChange[] = [];
    for (const [uri, edits] of edit.entries()) {
      let document: vscode.TextDocument | undefined;
      try {
        document = await vscode.workspace.openTextDocument(uri);
      } catch {
        document = undefined; // the edit creates it
      }
      const before = document?.getText() ?? '';
      const offsetAt = document ? (p: vscode.Position) => document.offsetAt(p) : offsetIn(before);
      const after = applyTextEdits(before, edits, offsetAt);
      const created = document === undefined;
      changes.push({ uri, before, after, created, version: document?.version });
    }
    return changes;
  }

  /**
   * The edit and changes again after a review: a document the user changed meanwhile gets
   * its edits re-based (`rebaseEdits`) in a new edit; a string says why nothing may be
   * applied.
   */
  private async afterReview(
    edit: vscode.WorkspaceEdit,
    changes: FileChange[],
  ): Promise<{ edit: vscode.WorkspaceEdit; changes: FileChange[] } | string> {
    const result: FileChange[] = [];
    const moves = new Map<string, vscode.TextEdit[]>();
    for (const change of changes) {
      const name = vscode.workspace.asRelativePath(change.uri);
      let document: vscode.TextDocument | undefined;
      try {
        document = await vscode.workspace.openTextDocument(change.uri);
      } catch {
        document = undefined;
      }
      if (change.created || document === undefined) {
        if (change.created === (document === undefined)) {
          result.push(change);
          continue;
        }
        return `${name}: ${CHANGED_IN_REVIEW}`;
      }
      const now = document.getText();
      if (document.version === change.version || now === change.before) {
        result.push(change);
        continue;
      }
      const original = offsetIn(change.before);
      const edits = edit.get(change.uri).map((e) => ({
        start: original(e.range.start),
        end: original(e.range.end),
        newText: e.newText,
      }));
      const moved = rebaseEdits(change.before, now, edits);
      if (moved === undefined) return `${name}: ${CHANGED_IN_REVIEW}`;
      const doc = document;
      const textEdits = moved.map(
        (e) => new vscode.TextEdit(new vscode.Range(doc.positionAt(e.start), doc.positionAt(e.end)), e.newText),
      );
      moves.set(change.uri.toString(), textEdits);
      const after = applyTextEdits(now, textEdits, (p) => doc.offsetAt(p));
      this.log(`Cairn: ${name} changed during the review; the edit was moved onto its new text.`);
      result.push({ ...change, before: now, after, version: doc.version, typedInReview: true });
    }
    if (moves.size === 0) return { edit, changes: result };
    // A new edit: `WorkspaceEdit.set` adds to a resource's edits rather than replacing them.
    const moved = new vscode.WorkspaceEdit();
    for (const [uri, edits] of edit.entries()) moved.set(uri, moves.get(uri.toString()) ?? edits);
    return { edit: moved, changes: result };
  }

  /** The language client's check: an edit for an open document's other version is refused. */
  private versionMismatch(params: ApplyWorkspaceEditParams, p2c: Protocol2CodeConverter): boolean {
    const open = new Map(vscode.workspace.textDocuments.map((doc) => [doc.uri.toString(), doc]));
    for (const change of params.edit.documentChanges ?? []) {
      if (TextDocumentEdit.is(change) && change.textDocument.version && change.textDocument.version >= 0) {
        const doc = open.get(p2c.asUri(change.textDocument.uri).toString());
        if (doc && doc.version !== change.textDocument.version) {
          return true;
        }
      }
    }
    return false;
  }

  private async save(uri: vscode.Uri, wasDirty: boolean, label: string | undefined): Promise<void> {
    const name = vscode.workspace.asRelativePath(uri);
    const what = label ? `the ${label} edit` : 'the server edit';
    if (wasDirty) {
      this.log(`Cairn: ${name} has unsaved changes, so ${what} was applied but not saved; save it to put both on disk.`);
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (!doc || !doc.isDirty) {
      return;
    }
    try {
      if (!(await doc.save())) {
        this.log(`Cairn: ${name}: ${what} was applied but saving it failed; the file on disk is unchanged.`);
      }
    } catch (error) {
      this.log(`Cairn: ${name}: ${what} was applied but saving it failed (${String(error)}).`);
    }
  }
}
