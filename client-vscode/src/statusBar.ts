/**
 * The context meter: a status-bar item `Cairn 42k / 128k` (used input /
 * context window) from `cairn/contextStatsChanged`, spinning while a
 * compaction runs, marked in Restricted Mode (restrictedMode.ts); clicking it
 * shows the last context manifest.
 */
import * as vscode from 'vscode';
import { CairnClient } from './client';
import { Command, TOKENS_PER_K } from './constants';
import { ContextStats, Method } from './protocol';
import { RESTRICTED_ICON, RESTRICTED_MODE, restricted } from './restrictedMode';

const STATUS_BAR_PRIORITY = 100;
const SPINNER = '$(sync~spin)';
const ERROR_ICON = '$(error)';
const PERCENT = 100;

/** `42k` for 42_317, `950` below a thousand. */
export function formatTokens(tokens: number): string {
  return tokens < TOKENS_PER_K ? String(tokens) : `${Math.round(tokens / TOKENS_PER_K)}k`;
}

export class ContextMeter implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscriptions: vscode.Disposable[];
  private readonly compacting = new Set<string>();
  /** The latest stats shown (the tests read them). */
  stats: ContextStats | undefined;

  constructor(private readonly client: CairnClient) {
    this.item = vscode.window.createStatusBarItem('cairn.contextMeter', vscode.StatusBarAlignment.Right, STATUS_BAR_PRIORITY);
    this.item.name = 'Cairn context';
    this.item.command = Command.showManifest;
    this.subscriptions = [
      this.item,
      client.onContextStats.event((stats) => {
        if (client.sessionId === undefined || client.sessionId === stats.sessionId) {
          this.stats = stats;
          this.render();
        }
      }),
      client.onCompaction.event((event) => {
        if (event.stage === 'start') {
          this.compacting.add(event.sessionId);
        } else {
          this.compacting.delete(event.sessionId);
        }
        this.render();
      }),
      client.onDidStart.event(() => void this.refresh()),
      client.onDidChangeState.event(() => this.render()),
      client.onDidChangeSession.event(() => void this.refresh()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.render()),
    ];
    this.render();
    this.item.show();
  }

  /** The text shown in the status bar. */
  get text(): string {
    return this.item.text;
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
  }

  /** Reads the active session's stats from the server. */
  async refresh(): Promise<void> {
    try {
      this.stats = await this.client.request(Method.contextStats, {});
    } catch {
      this.stats = undefined;
    }
    this.render();
  }

  /** Redraws the item from the stats, the compactions in progress and the client's state. */
  render(): void {
    const stats = this.stats;
    const busy = this.compacting.size > 0 || stats?.compaction.inProgress === true;
    const failed = this.client.state === 'failed';
    const meter = stats ? ` ${formatTokens(stats.usedInput)} / ${formatTokens(stats.contextWindow)}` : '';
    const icon = busy ? `${SPINNER} ` : failed ? `${ERROR_ICON} ` : restricted() ? `${RESTRICTED_ICON} ` : '';
    this.item.text = `${icon}Cairn${meter}`;
    this.item.tooltip = failed ? this.client.lastError : tooltip(stats, busy);
  }

  /** The tooltip's text (the tests read it). */
  get tooltipText(): string {
    const tip = this.item.tooltip;
    return typeof tip === 'string' ? tip : (tip?.value ?? '');
  }
}

function tooltip(stats: ContextStats | undefined, busy: boolean): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  if (restricted()) {
    md.appendMarkdown(`${RESTRICTED_MODE}\n\n`);
  }
  if (!stats) {
    md.appendMarkdown('Cairn: no model call yet. Click to show the context manifest.');
    return md;
  }
  const share = stats.availableInput > 0 ? Math.round((stats.usedInput / stats.availableInput) * PERCENT) : 0;
  md.appendMarkdown(`**Cairn context** of the last model call ${busy ? '(compacting…)' : ''}\n\n`);
  md.appendMarkdown(`Used ${stats.usedInput} of ${stats.availableInput} available input tokens (${share}%)\n\n`);
  md.appendMarkdown(
    `Window ${stats.contextWindow} · output ${stats.maxOutputTokens} · tool schemas ${stats.toolSchemaTokens} · margin ${stats.safetyMargin}\n\n`,
  );
  const sources = Object.entries(stats.bySource).sort((a, b) => b[1] - a[1]);
  if (sources.length > 0) {
    md.appendMarkdown('| source | tokens |\n| --- | ---: |\n');
    for (const [source, tokens] of sources) {
      md.appendMarkdown(`| ${source} | ${tokens} |\n`);
    }
  }
  md.appendMarkdown(`\nCompactions: ${stats.compaction.count} · summary tokens ${stats.compaction.summaryTokens}\n\n`);
  md.appendMarkdown(`${cacheLine(stats)}\n\n`);
  md.appendMarkdown('Click to show the last context manifest.');
  return md;
}

/** The prompt cache: the share predicted to be read from it, what the provider reported, the last break. */
export function cacheLine(stats: ContextStats): string {
  const cache = stats.cache;
  if (!cache) {
    return 'Prompt cache: no figures yet';
  }
  const sent = stats.usedInput + stats.toolSchemaTokens;
  const share = sent > 0 ? Math.round((cache.predictedCached / sent) * PERCENT) : 0;
  const reported = `provider: ${cache.cachedInput} cached, ${cache.cacheWriteInput} written`;
  const last = cache.lastBreak ? ` · last break: ${cache.lastBreak}` : '';
  return `Prompt cache: ${share}% of the input repeats the previous call (${cache.predictedCached} tokens) · ${reported}${last}`;
}
