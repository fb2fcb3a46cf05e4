/**
 * The chat webview's script (bundled by esbuild into dist/webview/chat.js):
 * renders the transcript the extension sends — one box per turn with the
 * user's message, the answer as Markdown (code highlighted, with Copy and
 * Insert), tool rows that expand to their arguments and output (a diff for
 * edits), inline approvals and edit reviews, compactions as one collapsible
 * line in place, the error once, and the turn's checkpoint actions — and
 * sends prompts, answers and actions back. Text from the model goes through
 * the Markdown renderer (raw HTML disabled) or `textContent`, never raw into
 * the page. The page (and its CSP) is built by src/chat.ts.
 */
import { TOKENS_PER_K } from '../constants';
import { ApprovalTool, CompactionEvent, MODES, TokenUsage, TurnEvent, TurnResult } from '../protocol';
import { APPROVAL_BUTTONS, APPROVAL_QUESTION, APPROVAL_REASON, APPROVAL_VERBS, COMPACTION_SENTENCES, NO_REASON, fillSentence } from '../sentences';
import { highlight, renderMarkdown } from './markdown';
import { ApprovalState, Banner, ChatEntry, FromWebview, Handlers, ToWebview, WebviewState, dispatch } from './messages';
import { visible } from './visible';

/** The part of the VS Code webview API this script uses. */
interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): WebviewState | undefined;
  setState(state: WebviewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const MAX_SHOWN_COMPLETIONS = 50;
/** A tool row's summary shows at most this much of its main argument. */
const SUMMARY_ARGUMENT_CHARS = 60;
const FINISH_LABELS: Record<TurnResult['finishReason'], string> = {
  stop: 'done',
  cancelled: 'stopped',
  error: 'failed',
  stepLimit: 'stopped at the step limit',
};
const COMPACTION_KEPT: Record<CompactionEvent['kind'], string> = {
  prune: 'old tool outputs are shown as one-line stubs; the full outputs stay in the trace',
  summary: 'older messages are now a structured summary; the latest turns are kept as they were',
  goal: "the finished goal's messages are folded into its summary",
};

/** The element with `id`, which must be of `type` (the page in src/chat.ts defines them). */
function byId<T extends HTMLElement>(id: string, type: { new (): T }): T {
  const node = document.getElementById(id);
  if (!(node instanceof type)) {
    throw new Error(`chat webview: #${id} is missing or not a ${type.name}`);
  }
  return node;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string | null,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function button(label: string, className: string, onClick: () => void, title?: string): HTMLButtonElement {
  const node = el('button', className, label);
  node.type = 'button';
  if (title) node.title = title;
  node.addEventListener('click', onClick);
  return node;
}

function k(tokens: number): string {
  return tokens >= TOKENS_PER_K ? `${Math.round(tokens / TOKENS_PER_K)}k` : String(tokens);
}

const vscode = acquireVsCodeApi();
const log = byId('log', HTMLDivElement);
const form = byId('composer', HTMLFormElement);
const prompt = byId('prompt', HTMLTextAreaElement);
const mode = byId('mode', HTMLSelectElement);
const send = byId('send', HTMLButtonElement);
const stop = byId('stop', HTMLButtonElement);
const list = byId('completions', HTMLUListElement);
const banner = byId('banner', HTMLDivElement);
const title = byId('title', HTMLSpanElement);

/** One turn on the page. */
interface TurnBox {
  id: string | null;
  root: HTMLElement;
  body: HTMLElement;
  footer: HTMLElement;
  changed: boolean;
  reverted: boolean;
  ended: boolean;
  hadError: boolean;
}

/** Everything the page keeps between messages: its turns and rows, Markdown sources, completions, busy. */
interface PageState {
  turns: TurnBox[];
  /** callId -> its tool row. */
  tools: Map<string, HTMLDetailsElement>;
  /** approval/review id -> its card. */
  cards: Map<string, HTMLElement>;
  /** callIds with a side-by-side diff. */
  diffs: Set<string>;
  /** Each Markdown block's source (streamed text is appended to it). */
  markdownSources: WeakMap<HTMLElement, string>;
  /** Markdown blocks to re-render on the next frame. */
  renderQueued: Set<HTMLElement>;
  /** Workspace-relative paths, loaded on the first "@". */
  files: string[] | null;
  /** The completions shown, and the one selected. */
  matches: string[];
  selected: number;
  /** A turn is running. */
  busy: boolean;
}

const page: PageState = {
  turns: [],
  tools: new Map(),
  cards: new Map(),
  diffs: new Set(),
  markdownSources: new WeakMap(),
  renderQueued: new Set(),
  files: null,
  matches: [],
  selected: 0,
  busy: false,
};

const saved = vscode.getState() ?? {};
if (saved.mode && MODES.includes(saved.mode)) mode.value = saved.mode;

function saveState(): void {
  const chosen = MODES.find((m) => m === mode.value);
  vscode.setState({ mode: chosen });
}

// ---- Markdown -----------------------------------------------------------------
/** Renders a Markdown block now, with a toolbar on each code block. */
function renderBlock(node: HTMLElement): void {
  node.innerHTML = renderMarkdown(page.markdownSources.get(node) ?? '');
  for (const pre of Array.from(node.querySelectorAll('pre'))) {
    const code = pre.querySelector('code');
    const text = code?.textContent ?? '';
    const language = /language-([\w+-]+)/.exec(code?.className ?? '')?.[1] ?? '';
    const frame = el('div', 'codeblock');
    const bar = el('div', 'codebar');
    bar.appendChild(el('span', 'lang', language || 'text'));
    bar.appendChild(button('Copy', 'link', () => vscode.postMessage({ type: 'copy', text }), 'Copy the code'));
    bar.appendChild(button('Insert', 'link', () => vscode.postMessage({ type: 'insert', text }), 'Insert at the cursor'));
    pre.replaceWith(frame);
    frame.appendChild(bar);
    frame.appendChild(pre);
  }
}

/** Re-renders streamed Markdown at most once a frame. */
function queueRender(node: HTMLElement): void {
  if (page.renderQueued.size === 0) {
    requestAnimationFrame(() => {
      const queued = page.renderQueued;
      page.renderQueued = new Set();
      queued.forEach(renderBlock);
      scrollToEnd();
    });
  }
  page.renderQueued.add(node);
}

function markdownBlock(parent: HTMLElement, className: string, text: string): HTMLElement {
  const node = el('div', `md ${className}`);
  page.markdownSources.set(node, text);
  renderBlock(node);
  parent.appendChild(node);
  return node;
}

log.addEventListener('click', (event) => {
  const link = (event.target as HTMLElement).closest('a');
  if (link && link.getAttribute('href')) {
    event.preventDefault();
    vscode.postMessage({ type: 'openLink', href: link.getAttribute('href') ?? '' });
  }
});

// ---- turns --------------------------------------------------------------------
function newTurn(id: string | null): TurnBox {
  const root = el('section', 'turn');
  const body = el('div', 'turn-body');
  const footer = el('div', 'turn-footer');
  root.append(body, footer);
  if (id) root.dataset.turn = id;
  log.appendChild(root);
  const box: TurnBox = { id, root, body, footer, changed: false, reverted: false, ended: false, hadError: false };
  page.turns.push(box);
  return box;
}

/** The box of turn `id`: the one waiting for its id (the user's message was shown first), or a new one. */
function turnBox(id: string): TurnBox {
  const known = page.turns.find((t) => t.id === id);
  if (known) return known;
  const waiting = page.turns.at(-1);
  if (waiting && waiting.id === null) {
    waiting.id = id;
    waiting.root.dataset.turn = id;
    return waiting;
  }
  return newTurn(id);
}

/** A session's title until the server has one: its first message's first line (as the server titles it). */
const TITLE_CHARS = 80;

function renderUser(entry: Extract<ChatEntry, { kind: 'user' }>): void {
  if (page.turns.length === 0 && title.dataset.untitled === 'true') {
    title.textContent = entry.text.split('\n')[0].slice(0, TITLE_CHARS);
    title.dataset.untitled = 'false';
  }
  const box = newTurn(null);
  const row = el('div', 'user');
  if (entry.mode) row.appendChild(el('span', 'mode', entry.mode));
  row.appendChild(el('span', 'user-text', entry.text));
  box.root.insertBefore(row, box.body);
}

function appendStream(box: TurnBox, kind: 'text' | 'reasoning', text: string): void {
  const last = box.body.lastElementChild;
  if (kind === 'reasoning') {
    let details = last instanceof HTMLDetailsElement && last.classList.contains('reasoning') ? last : null;
    if (!details) {
      details = el('details', 'reasoning');
      details.appendChild(el('summary', undefined, 'Thinking'));
      details.appendChild(el('div', 'reasoning-text'));
      box.body.appendChild(details);
    }
    const target = details.querySelector('.reasoning-text');
    if (target) target.textContent = (target.textContent ?? '') + text;
    return;
  }
  if (last instanceof HTMLElement && last.classList.contains('answer')) {
    page.markdownSources.set(last, (page.markdownSources.get(last) ?? '') + text);
    queueRender(last);
  } else {
    markdownBlock(box.body, 'answer', text);
  }
}

/** The argument a tool row's summary shows: the command, path or pattern. */
function mainArgument(argumentsJson: string | null): string {
  try {
    const args = JSON.parse(argumentsJson ?? '{}') as Record<string, unknown>;
    const value = args.command ?? args.path ?? args.pattern ?? args.add ?? args.done ?? args.focus ?? '';
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return text.length > SUMMARY_ARGUMENT_CHARS ? `${text.slice(0, SUMMARY_ARGUMENT_CHARS)}…` : text;
  } catch {
    return '';
  }
}

function pretty(argumentsJson: string | null): string {
  try {
    return JSON.stringify(JSON.parse(argumentsJson ?? ''), null, 2);
  } catch {
    return argumentsJson ?? '';
  }
}

function codeSection(parent: HTMLElement, label: string, text: string, language: string): void {
  parent.appendChild(el('div', 'section-label', label));
  const pre = el('pre', `tool-${label.toLowerCase()}`);
  const code = el('code');
  code.innerHTML = highlight(text, language);
  pre.appendChild(code);
  parent.appendChild(pre);
}

function setToolState(row: HTMLDetailsElement, state: string, className: string): void {
  row.classList.remove('running', 'waiting', 'ok', 'error');
  row.classList.add(className);
  const node = row.querySelector('.tool-state');
  if (node) node.textContent = state;
}

function renderToolStart(box: TurnBox, event: TurnEvent): void {
  const row = el('details', 'tool running');
  const summary = el('summary');
  summary.appendChild(el('span', 'tool-name', event.tool || 'tool'));
  summary.appendChild(el('span', 'tool-arg', mainArgument(event.text)));
  summary.appendChild(el('span', 'tool-state', 'running…'));
  row.appendChild(summary);
  const detail = el('div', 'tool-detail');
  codeSection(detail, 'Arguments', pretty(event.text), 'json');
  row.appendChild(detail);
  box.body.appendChild(row);
  if (event.callId) {
    row.dataset.call = event.callId;
    page.tools.set(event.callId, row);
  }
}

function renderToolEnd(box: TurnBox, event: TurnEvent): void {
  let row = event.callId ? page.tools.get(event.callId) : undefined;
  if (!row) {
    renderToolStart(box, { ...event, text: null });
    row = event.callId ? page.tools.get(event.callId) : (box.body.lastElementChild as HTMLDetailsElement);
  }
  if (!row) return;
  const ok = event.ok !== false;
  setToolState(row, ok ? event.text || 'ok' : event.text || 'error', ok ? 'ok' : 'error');
  const detail = row.querySelector('.tool-detail') ?? row;
  const output = event.detail ?? event.text ?? '';
  const isEdit = event.tool === 'edit_file';
  codeSection(detail as HTMLElement, 'Output', isEdit ? output.split('\n').slice(1).join('\n') : output, isEdit ? 'diff' : '');
  if (isEdit && ok) box.changed = true;
  if (event.callId && (isEdit || page.diffs.has(event.callId))) addDiffLink(row, event.callId);
}

function addDiffLink(row: HTMLDetailsElement, callId: string): void {
  if (!page.diffs.has(callId) || row.querySelector('.open-diff')) return;
  const link = button('Open diff', 'link open-diff', () => vscode.postMessage({ type: 'openDiff', callId }), 'Show the edit side by side');
  row.querySelector('summary')?.appendChild(link);
}

function renderEvent(event: TurnEvent): void {
  const box = turnBox(event.turnId);
  switch (event.kind) {
    case 'text':
    case 'reasoning':
      appendStream(box, event.kind, event.text || '');
      break;
    case 'toolStart':
      renderToolStart(box, event);
      break;
    case 'toolEnd':
      renderToolEnd(box, event);
      break;
    case 'retry':
      box.body.appendChild(el('div', 'retry', event.text ?? ''));
      break;
    case 'usage':
      if (event.usage) box.body.appendChild(el('div', 'usage', usageText(event.usage, event.attempt ?? 1)));
      break;
    case 'error':
      box.hadError = true;
      markdownBlock(box.body, 'error', event.text || 'error');
      break;
    case 'end':
      box.ended = true;
      box.root.classList.add('ended');
      updateCheckpoints();
      break;
  }
}

/** `12.3k in / 678 out · $0.0123 · 2 requests` (cost when priced, requests when retried). */
function usageText(usage: TokenUsage, requests: number): string {
  const parts = [`${k(usage.inputTokens)} in / ${k(usage.outputTokens)} out`];
  if (usage.cost !== null && usage.cost !== undefined) parts.push(`$${usage.cost.toFixed(4)}`);
  if (requests > 1) parts.push(`${requests} requests`);
  return parts.join(' · ');
}

// ---- compaction -------------------------------------------------------------------
/** The server's sentence of this stage (`sentences.ts`), with the webview's token counts. */
function compactionText(event: CompactionEvent): string {
  return fillSentence(COMPACTION_SENTENCES[event.stage], {
    kind: event.kind,
    before: k(event.tokensBefore),
    after: k(event.tokensAfter ?? event.tokensBefore),
    reason: event.error || NO_REASON,
  });
}

function renderCompaction(entry: Extract<ChatEntry, { kind: 'compaction' }>): void {
  const event = entry.event;
  const parent = entry.turnId ? turnBox(entry.turnId).body : log;
  const open = Array.from(parent.querySelectorAll<HTMLDetailsElement>(`details.compaction.start[data-kind="${event.kind}"]`)).at(-1);
  const line = event.stage !== 'start' && open ? open : el('details', 'compaction');
  line.className = `compaction ${event.stage}`;
  line.dataset.kind = event.kind;
  line.textContent = '';
  line.appendChild(el('summary', undefined, compactionText(event)));
  const body = el('div', 'compaction-detail');
  body.appendChild(el('div', undefined, `kept: ${COMPACTION_KEPT[event.kind]}.`));
  if (event.tokensAfter !== null && event.stage === 'done') {
    body.appendChild(el('div', undefined, `freed ${k(Math.max(event.tokensBefore - event.tokensAfter, 0))} tokens of context.`));
  }
  line.appendChild(body);
  if (!line.parentElement) parent.appendChild(line);
}

// ---- approvals and reviews ---------------------------------------------------------
const APPROVAL_STATES: Record<Exclude<ApprovalState, 'pending'>, string> = {
  once: 'You ran it.',
  always: 'You allowed it for this session.',
  reject: 'You rejected it.',
  expired: 'No longer needed: the turn ended.',
};

function placeCard(id: string, card: HTMLElement, turnId: string | null, callId: string | null): void {
  const existing = page.cards.get(id);
  if (existing) {
    existing.replaceWith(card);
  } else {
    const row = callId ? page.tools.get(callId) : undefined;
    if (row) {
      row.after(card);
    } else {
      (turnId ? turnBox(turnId).body : log).appendChild(card);
    }
  }
  page.cards.set(id, card);
}

/** A sentence set on a line of its own (the shared templates start mid-sentence). */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function renderApproval(entry: Extract<ChatEntry, { kind: 'approval' }>): void {
  const card = el('div', `card approval ${entry.state}`);
  card.setAttribute('role', 'group');
  card.setAttribute('aria-label', 'Approval');
  const verb = APPROVAL_VERBS[entry.request.tool.startsWith(ApprovalTool.mcpPrefix) ? 'tool' : 'command'];
  card.appendChild(el('div', 'card-title', `${fillSentence(APPROVAL_QUESTION, { verb })} (${entry.request.tool}):`));
  const command = el('pre', 'command');
  command.appendChild(el('code', undefined, visible(entry.request.command)));
  card.appendChild(command);
  if (entry.request.reason) card.appendChild(el('div', 'card-reason', capitalized(fillSentence(APPROVAL_REASON, { reason: visible(entry.request.reason) }))));
  if (entry.request.sandbox) card.appendChild(el('div', 'card-sandbox', visible(entry.request.sandbox)));
  const row = page.tools.get(entry.request.callId);
  if (entry.state === 'pending') {
    const actions = el('div', 'actions');
    const answer = (decision: 'once' | 'always' | 'reject') => () => vscode.postMessage({ type: 'approve', id: entry.id, decision });
    actions.appendChild(button(APPROVAL_BUTTONS.once, 'primary', answer('once')));
    actions.appendChild(button(APPROVAL_BUTTONS.always, 'secondary', answer('always'), 'Run it, and run this command (with any arguments) without asking for the rest of this session'));
    actions.appendChild(button(APPROVAL_BUTTONS.reject, 'secondary', answer('reject')));
    card.appendChild(actions);
    if (row) setToolState(row, 'waiting for you', 'waiting');
  } else {
    card.appendChild(el('div', 'card-state', APPROVAL_STATES[entry.state]));
    if (row && row.classList.contains('waiting')) setToolState(row, entry.state === 'reject' ? 'rejected' : 'running…', 'running');
  }
  placeCard(entry.id, card, entry.request.turnId, entry.request.callId);
  if (entry.state === 'pending') card.querySelector('button')?.focus();
}

function renderReview(entry: Extract<ChatEntry, { kind: 'review' }>): void {
  const card = el('div', `card review ${entry.state}`);
  card.setAttribute('role', 'group');
  card.setAttribute('aria-label', 'Edit review');
  card.appendChild(el('div', 'card-title', `Review ${entry.path} (+${entry.added} −${entry.removed})`));
  const actions = el('div', 'actions');
  if (entry.state === 'pending') {
    actions.appendChild(button('Open diff', 'link', () => vscode.postMessage({ type: 'openReview', id: entry.id })));
    actions.appendChild(button('Accept', 'primary', () => vscode.postMessage({ type: 'review', id: entry.id, accept: true })));
    actions.appendChild(button('Reject', 'secondary', () => vscode.postMessage({ type: 'review', id: entry.id, accept: false })));
    card.appendChild(actions);
  } else {
    const states = { accepted: 'Accepted and saved.', rejected: 'Rejected: the file is unchanged.', expired: 'Not applied: the turn ended.' };
    card.appendChild(el('div', 'card-state', states[entry.state]));
  }
  const running = Array.from(page.tools.values()).filter((row) => row.classList.contains('running')).at(-1);
  if (running && entry.state === 'pending') setToolState(running, 'waiting for your review', 'waiting');
  placeCard(entry.id, card, entry.turnId, running?.dataset.call ?? null);
}

// ---- results and checkpoints -------------------------------------------------------
function renderResult(result: TurnResult): void {
  const box = turnBox(result.turnId);
  box.ended = true;
  box.root.classList.add('ended');
  box.changed = box.changed || result.changedFiles.length > 0;
  if (result.error && !box.hadError) {
    box.hadError = true;
    markdownBlock(box.body, 'error', result.error);
  }
  const usage = result.usage;
  const line = el('div', `result ${result.finishReason}`);
  line.textContent = `${FINISH_LABELS[result.finishReason]} · ${usageText(usage, 1)} (whole turn)`;
  box.footer.querySelector('.result')?.remove();
  box.footer.prepend(line);
  updateCheckpoints();
}

/** The checkpoint actions of every ended turn: restore files (when it or a later turn changed some), fork, both. */
function updateCheckpoints(): void {
  let laterChanges = false;
  for (const box of [...page.turns].reverse()) {
    laterChanges = laterChanges || (box.changed && !box.reverted);
    box.footer.querySelector('.checkpoint')?.remove();
    if (!box.ended || !box.id) continue;
    const id = box.id;
    const bar = el('div', 'checkpoint');
    bar.setAttribute('role', 'group');
    bar.setAttribute('aria-label', 'Checkpoint: back to before this turn');
    const restore = (files: boolean, conversation: boolean) => () =>
      vscode.postMessage({ type: 'restore', turnId: id, files, conversation });
    if (laterChanges) {
      bar.appendChild(button('Restore files', 'link', restore(true, false), "Undo the files' changes of this turn and of the later ones"));
    }
    bar.appendChild(button('Fork from here', 'link', restore(false, true), 'A new chat with the conversation before this turn'));
    if (laterChanges) {
      bar.appendChild(button('Restore both', 'link', restore(true, true), 'Restore the files and fork the conversation before this turn'));
    }
    if (box.reverted) bar.appendChild(el('span', 'reverted', 'files restored to before this turn'));
    box.footer.appendChild(bar);
  }
}

// ---- rows ---------------------------------------------------------------------------
const renderers: { [K in ChatEntry['kind']]: (entry: Extract<ChatEntry, { kind: K }>) => void } = {
  user: renderUser,
  event: (entry) => renderEvent(entry.event),
  compaction: renderCompaction,
  result: (entry) => renderResult(entry.result),
  stopped: () => (page.turns.at(-1)?.body ?? log).appendChild(el('div', 'stopped', 'Stopped.')),
  error: (entry) => markdownBlock(page.turns.at(-1)?.ended === false ? (page.turns.at(-1) as TurnBox).body : log, 'error', entry.text),
  notice: (entry) => log.appendChild(el('div', 'notice', entry.text)),
  approval: renderApproval,
  review: renderReview,
  reverted: (entry) => {
    for (const box of page.turns) {
      if (box.id && entry.turnIds.includes(box.id)) box.reverted = true;
    }
    updateCheckpoints();
  },
};

function render(entry: ChatEntry): void {
  (renderers[entry.kind] as (entry: ChatEntry) => void)(entry);
}

function scrollToEnd(): void {
  log.scrollTop = log.scrollHeight;
}

function setBusy(value: boolean): void {
  page.busy = value;
  send.disabled = page.busy;
  stop.disabled = !page.busy;
  document.body.classList.toggle('busy', page.busy);
}

function showBanner(value: Banner): void {
  banner.textContent = '';
  banner.hidden = value === null;
  if (value === null) return;
  banner.appendChild(el('span', undefined, value.text));
  banner.appendChild(button(value.label, 'primary', () => vscode.postMessage({ type: 'banner', action: value.action })));
}

const handlers: Handlers<ToWebview> = {
  reset: (message) => {
    log.textContent = '';
    page.turns = [];
    page.tools.clear();
    page.cards.clear();
    page.diffs.clear();
    message.diffs.forEach((id) => page.diffs.add(id));
    title.textContent = message.title || 'New chat';
    title.dataset.untitled = String(!message.title);
    message.entries.forEach(render);
    setBusy(message.busy);
  },
  entries: (message) => message.entries.forEach(render),
  busy: (message) => setBusy(message.busy),
  files: (message) => {
    page.files = message.files;
    updateCompletions();
  },
  focus: () => prompt.focus(),
  diff: (message) => {
    page.diffs.add(message.callId);
    const row = page.tools.get(message.callId);
    if (row) addDiffLink(row, message.callId);
  },
  banner: (message) => showBanner(message.banner),
};

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  if (dispatch(handlers, event.data)) {
    scrollToEnd();
  }
});
window.addEventListener('focus', () => prompt.focus());

// ---- @file completion -----------------------------------------------------
function mentionAtCursor(): { query: string; start: number } | null {
  const before = prompt.value.slice(0, prompt.selectionStart);
  const m = /(^|\s)@([^\s@]*)$/.exec(before);
  return m ? { query: m[2], start: before.length - m[2].length } : null;
}

function hideCompletions(): void {
  list.hidden = true;
  page.matches = [];
  prompt.setAttribute('aria-expanded', 'false');
  prompt.removeAttribute('aria-activedescendant');
}

function updateCompletions(): void {
  const mention = mentionAtCursor();
  if (!mention) return hideCompletions();
  if (page.files === null) {
    vscode.postMessage({ type: 'requestFiles' });
    return;
  }
  const q = mention.query.toLowerCase();
  const starts = page.files.filter((f) => f.toLowerCase().startsWith(q));
  const contains = page.files.filter((f) => !f.toLowerCase().startsWith(q) && f.toLowerCase().includes(q));
  page.matches = starts.concat(contains).slice(0, MAX_SHOWN_COMPLETIONS);
  if (page.matches.length === 0) return hideCompletions();
  page.selected = Math.min(page.selected, page.matches.length - 1);
  list.textContent = '';
  page.matches.forEach((file, i) => {
    const item = el('li', i === page.selected ? 'selected' : '', file);
    item.id = `completion-${i}`;
    item.setAttribute('role', 'option');
    item.setAttribute('aria-selected', String(i === page.selected));
    item.addEventListener('mousedown', (ev) => {
      ev.preventDefault();
      accept(i);
    });
    list.appendChild(item);
  });
  list.hidden = false;
  prompt.setAttribute('aria-expanded', 'true');
  prompt.setAttribute('aria-activedescendant', `completion-${page.selected}`);
}

function accept(index: number): void {
  const mention = mentionAtCursor();
  if (!mention || !page.matches[index]) return hideCompletions();
  const end = prompt.selectionStart;
  const inserted = page.matches[index] + ' ';
  prompt.value = prompt.value.slice(0, mention.start) + inserted + prompt.value.slice(end);
  const cursor = mention.start + inserted.length;
  prompt.setSelectionRange(cursor, cursor);
  hideCompletions();
}

// ---- composer ---------------------------------------------------------------
function submit(): void {
  const text = prompt.value.trim();
  if (!text || page.busy) return;
  const chosen = MODES.find((m) => m === mode.value) ?? MODES[0];
  vscode.postMessage({ type: 'send', text, mode: chosen });
  prompt.value = '';
  hideCompletions();
}

/** Completion keys while the list is open; true when the key was used. */
function completionKey(e: KeyboardEvent): boolean {
  if (list.hidden || page.matches.length === 0) return false;
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    page.selected = (page.selected + (e.key === 'ArrowDown' ? 1 : page.matches.length - 1)) % page.matches.length;
    updateCompletions();
  } else if (e.key === 'Enter' || e.key === 'Tab') {
    accept(page.selected);
  } else if (e.key === 'Escape') {
    hideCompletions();
  } else {
    return false;
  }
  e.preventDefault();
  return true;
}

prompt.addEventListener('input', () => {
  page.selected = 0;
  updateCompletions();
});
prompt.addEventListener('keydown', (e) => {
  if (completionKey(e)) return;
  if (e.key === 'Enter' && !e.shiftKey) {
    e.preventDefault();
    submit();
  }
});
prompt.addEventListener('blur', () => setTimeout(hideCompletions, 0));
form.addEventListener('submit', (e) => {
  e.preventDefault();
  submit();
});
stop.addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
mode.addEventListener('change', saveState);

vscode.postMessage({ type: 'ready' });
prompt.focus();
document.body.dataset.ready = 'true';
