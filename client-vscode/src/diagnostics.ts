/**
 * Forwards the editor's diagnostics from every provider to the server as
 * `cairn/diagnostics` (debounced; one notification per changed uri, an empty
 * list when cleared), and resends all of them whenever a server comes up.
 */
import * as vscode from 'vscode';
import { CairnClient } from './client';
import { DIAGNOSTICS_DEBOUNCE_MS } from './constants';
import { DiagnosticsParams, Method, Diagnostic as WireDiagnostic } from './protocol';

/** LSP severities are 1-based (Error = 1); vscode's enum is 0-based (Error = 0). */
const LSP_SEVERITY_OFFSET = 1;

export function toWireDiagnostic(diagnostic: vscode.Diagnostic): WireDiagnostic {
  const { start, end } = diagnostic.range;
  const wire: WireDiagnostic = {
    range: {
      start: { line: start.line, character: start.character },
      end: { line: end.line, character: end.character },
    },
    message: diagnostic.message,
    severity: (diagnostic.severity + LSP_SEVERITY_OFFSET) as WireDiagnostic['severity'],
  };
  if (diagnostic.source) {
    wire.source = diagnostic.source;
  }
  const code = typeof diagnostic.code === 'object' ? diagnostic.code.value : diagnostic.code;
  if (code !== undefined) {
    wire.code = code;
  }
  return wire;
}

export function diagnosticsParams(uri: vscode.Uri): DiagnosticsParams {
  return { uri: uri.toString(), diagnostics: vscode.languages.getDiagnostics(uri).map(toWireDiagnostic) };
}

export class DiagnosticsForwarder implements vscode.Disposable {
  private readonly pending = new Map<string, vscode.Uri>();
  private timer: NodeJS.Timeout | undefined;
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly client: CairnClient) {
    this.subscriptions = [
      vscode.languages.onDidChangeDiagnostics((event) => this.schedule(event.uris)),
      client.onDidStart.event(() => this.sendAll()),
    ];
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.subscriptions.forEach((s) => s.dispose());
  }

  private schedule(uris: readonly vscode.Uri[]): void {
    for (const uri of uris) {
      if (uri.scheme === 'file') {
        this.pending.set(uri.toString(), uri);
      }
    }
    if (this.pending.size > 0) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.flush(), DIAGNOSTICS_DEBOUNCE_MS);
    }
  }

  private flush(): void {
    this.timer = undefined;
    const uris = [...this.pending.values()];
    this.pending.clear();
    for (const uri of uris) {
      void this.client.notify(Method.diagnostics, diagnosticsParams(uri));
    }
  }

  private sendAll(): void {
    for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
      if (uri.scheme === 'file' && diagnostics.length > 0) {
        void this.client.notify(Method.diagnostics, diagnosticsParams(uri));
      }
    }
  }
}
