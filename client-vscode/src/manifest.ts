/**
 * Readable views built from the protocol: the last context manifest
 * (`cairn/contextManifest`: per block its source, tokens, and whether it was
 * included or why it was dropped, its cache zone, and the call's prompt-cache
 * prediction, provider report and cache break) and the trace view (goal tree, context
 * stats, sessions) of the focused session. Both are read-only rendered
 * Markdown (virtual documents in the Markdown preview): closing them never
 * asks to save anything.
 */
import { CairnClient } from './client';
import { ContextStats, GoalTreeView, Manifest, Method, SessionsResult } from './protocol';
import { VirtualDocuments, showRendered } from './virtualDocs';

const VIEW_FOLDER = 'views';

const PERCENT = 100;

function cell(text: string | null | undefined): string {
  return (text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function percentOf(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * PERCENT) : 0;
}

/** The prompt cache of the call: what the build predicted, what the provider reported, why it broke. */
function cacheLines(manifest: Manifest): string[] {
  const predicted = manifest.cache.predictedCached;
  const lines = [`Prompt cache: **${predicted}** tokens predicted from cache (${percentOf(predicted, manifest.usedInput)}% of the input).`];
  if (manifest.usage) {
    const { inputTokens, cachedInputTokens, cacheWriteInputTokens } = manifest.usage;
    lines.push(
      `Reported by the provider: ${cachedInputTokens} of ${inputTokens} input tokens read from cache (${percentOf(cachedInputTokens, inputTokens)}%), ${cacheWriteInputTokens} written.`,
    );
  }
  lines.push(manifest.cacheBreak ? `Cache break before this call: ${manifest.cacheBreak}.` : 'No cache break before this call.');
  return lines.flatMap((line) => [line, '']);
}

/** The manifest as markdown: one row per block, then totals by inclusion and by source. */
export function renderManifest(manifest: Manifest): string {
  const included = manifest.blocks.filter((b) => b.included);
  const dropped = manifest.blocks.filter((b) => !b.included);
  const sum = (blocks: typeof manifest.blocks): number => blocks.reduce((n, b) => n + b.tokens, 0);
  const share = percentOf(manifest.usedInput, manifest.availableInput);
  const lines = [
    '# Cairn context manifest',
    '',
    `Session \`${manifest.sessionId}\` · call \`${manifest.callId ?? 'dry run'}\` · model \`${manifest.model}\``,
    '',
    `Used **${manifest.usedInput}** of **${manifest.availableInput}** available input tokens (${share}%).`,
    '',
    ...cacheLines(manifest),
    '| # | source | ref | priority | tokens | included | reason | zone |',
    '| ---: | --- | --- | ---: | ---: | --- | --- | --- |',
    ...manifest.blocks.map(
      (b, i) =>
        `| ${i + 1} | ${cell(b.source)} | ${cell(b.target ? `${b.ref} → ${b.target}` : b.ref)} | ${b.priority} | ${b.tokens} | ${b.included ? 'yes' : 'dropped'} | ${cell(b.reason)} | ${cell(b.zone)} |`,
    ),
    '',
    '## Totals',
    '',
    '| | blocks | tokens |',
    '| --- | ---: | ---: |',
    `| included | ${included.length} | ${sum(included)} |`,
    `| dropped | ${dropped.length} | ${sum(dropped)} |`,
    `| all | ${manifest.blocks.length} | ${sum(manifest.blocks)} |`,
    '',
    '## By source (included)',
    '',
    '| source | tokens |',
    '| --- | ---: |',
  ];
  const bySource = new Map<string, number>();
  for (const block of included) {
    bySource.set(block.source, (bySource.get(block.source) ?? 0) + block.tokens);
  }
  for (const [source, tokens] of [...bySource].sort((a, b) => b[1] - a[1])) {
    lines.push(`| ${source} | ${tokens} |`);
  }
  return lines.join('\n') + '\n';
}

/** The trace view: the plan, the context numbers and the session list. */
export function renderTrace(goals: GoalTreeView, stats: ContextStats | undefined, sessions: SessionsResult): string {
  const lines = [`# Cairn trace: session \`${goals.sessionId}\``, ''];
  if (goals.tree.mission) {
    lines.push(`Mission: ${goals.tree.mission}`, '');
  }
  lines.push('## Goals', '', '```text', goals.rendered.trimEnd() || '(no goals)', '```', '');
  if (stats) {
    lines.push(
      '## Context',
      '',
      `Used ${stats.usedInput} of ${stats.availableInput} available input tokens (window ${stats.contextWindow}).`,
      `Compactions: ${stats.compaction.count}, summary tokens ${stats.compaction.summaryTokens}.`,
      `Prompt cache: ${stats.cache.predictedCached} tokens predicted from cache for the next call; the last call read ${stats.cache.cachedInput} from cache and wrote ${stats.cache.cacheWriteInput}${stats.cache.lastBreak ? `; last break: ${stats.cache.lastBreak}` : ''}.`,
      '',
    );
  }
  lines.push('## Sessions', '', '| session | title | parent | turns | updated |', '| --- | --- | --- | ---: | --- |');
  for (const s of sessions.sessions) {
    const marker = s.sessionId === goals.sessionId ? ' (this)' : '';
    lines.push(`| \`${s.sessionId}\`${marker} | ${cell(s.title)} | ${cell(s.parentId)} | ${s.turns} | ${s.updatedAt} |`);
  }
  return lines.join('\n') + '\n';
}

/** `Cairn: Show Context Manifest` — the last manifest of the focused session, rendered; returns its Markdown. */
export async function showManifest(client: CairnClient, docs: VirtualDocuments): Promise<string> {
  const manifest = await client.request(Method.contextManifest, {});
  const text = renderManifest(manifest);
  await showRendered(docs, VirtualDocuments.uri(VIEW_FOLDER, 'Cairn context manifest.md'), text);
  return text;
}

/** `Cairn: Show Trace` — the goal tree, context and sessions of the focused session, rendered; returns its Markdown. */
export async function showTrace(client: CairnClient, docs: VirtualDocuments): Promise<string> {
  const goals = await client.request(Method.goalTree, {});
  const stats = await client.request(Method.contextStats, { sessionId: goals.sessionId }).catch(() => undefined);
  const sessions = await client.requestRaw(Method.sessions, {});
  const text = renderTrace(goals, stats, sessions);
  await showRendered(docs, VirtualDocuments.uri(VIEW_FOLDER, 'Cairn trace.md'), text);
  return text;
}
