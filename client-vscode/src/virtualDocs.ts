/**
 * Read-only documents the extension makes up: the manifest and trace views
 * (Markdown, shown rendered in VS Code's Markdown preview) and the texts of
 * diffs (an edit's before and after, an edit held for review). They are
 * virtual (`cairn-doc:` URIs served by a content provider), so they are
 * never dirty and never ask to be saved.
 */
import * as vscode from 'vscode';

export const SCHEME = 'cairn-doc';
/** At most this many documents are kept (the oldest are forgotten; their tabs show empty). */
const MAX_DOCUMENTS = 400;

export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);
  }

  /** The URI of document `name` under `folder` (a path; the extension keeps the file name). */
  static uri(folder: string, name: string): vscode.Uri {
    return vscode.Uri.from({ scheme: SCHEME, path: `/${folder}/${name}` });
  }

  /** Sets (or replaces) a document's text; open editors of it refresh. */
  set(uri: vscode.Uri, text: string): vscode.Uri {
    const key = uri.toString();
    this.texts.delete(key);
    this.texts.set(key, text);
    if (this.texts.size > MAX_DOCUMENTS) {
      const oldest = this.texts.keys().next().value;
      if (oldest !== undefined) this.texts.delete(oldest);
    }
    this.changed.fire(uri);
    return uri;
  }

  has(uri: vscode.Uri): boolean {
    return this.texts.has(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

/** Opens a Markdown document rendered (VS Code's Markdown preview), read-only. */
export async function showRendered(docs: VirtualDocuments, uri: vscode.Uri, markdown: string): Promise<void> {
  docs.set(uri, markdown);
  await vscode.commands.executeCommand('markdown.showPreview', uri);
}
