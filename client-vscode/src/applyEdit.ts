/**
 * Applies the server's `workspace/applyEdit` requests AND saves them.
 *
 * VS Code applies a workspace edit to the text model and leaves the document
 * dirty, also for a file that was not open. The agent then runs commands
 * (tests) on the files on disk, which would still hold the old text. So every
 * document the edit touches that was not dirty before is saved right after
 * the edit; a document with the user's unsaved changes stays unsaved (the
 * edit is applied on top of them) and the log says so.
 *
 * Every server edit is saved, not only the agent's (label "Cairn"): the
 * server is ours and applyEdit is how it changes files, so the file on disk is
 * always the one it meant to write.
 */
import * as vscode from 'vscode';
import {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditResult,
  Protocol2CodeConverter,
  TextDocumentEdit,
} from 'vscode-languageclient/node';

const VERSION_MISMATCH = 'the document changed since the server read it (version mismatch)';
const NOT_APPLIED = 'VS Code did not apply the edit';

/** Applies server edits one after the other (the dirty snapshot of one edit is not raced by the next). */
export class EditApplier {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly log: (line: string) => void) {}

  /**
   * The `workspace/applyEdit` handler: the language client's own checks
   * (`p2c`: the client's protocol converter), then apply and save.
   */
  handle(params: ApplyWorkspaceEditParams, p2c: Protocol2CodeConverter): Promise<ApplyWorkspaceEditResult> {
    const job = (): Promise<ApplyWorkspaceEditResult> => this.apply(params, p2c);
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async apply(params: ApplyWorkspaceEditParams, p2c: Protocol2CodeConverter): Promise<ApplyWorkspaceEditResult> {
    const converted = await p2c.asWorkspaceEdit(params.edit);
    if (this.versionMismatch(params, p2c)) {
      return { applied: false, failureReason: VERSION_MISMATCH };
    }
    const affected = converted.entries().map(([uri]) => uri);
    const dirtyBefore = new Set(
      vscode.workspace.textDocuments.filter((doc) => doc.isDirty).map((doc) => doc.uri.toString()),
    );
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
    return { applied: true };
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
