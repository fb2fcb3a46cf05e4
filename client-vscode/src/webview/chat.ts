/**
 * The chat webview's script (bundled by esbuild into dist/webview/chat.js):
 * renders the transcript the extension sends, and sends prompts, Stop and
 * `@file` completion requests back. Text is always inserted with
 * textContent, never as HTML. The page (and its CSP) is built by src/chat.ts.
 */
import { TOKENS_PER_K } from '../constants';
import { CompactionEvent, MODES, TokenUsage, TurnEvent, TurnResult } from '../protocol';
import { ChatEntry, FromWebview, Handlers, ToWebview, WebviewState, dispatch } from './messages';

/** The part of the VS Code webview API this script uses. */
interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): WebviewState | undefined;
  setState(state: WebviewState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const MAX_SHOWN_COMPLETIONS = 50;

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

const turns = new Map<string, HTMLDivElement>(); // turnId -> container element
const tools = new Map<string, HTMLDetailsElement>(); // callId -> <details>
let files: string[] | null = null; // workspace-relative paths, loaded on the first "@"
let matches: string[] = [];
let selected = 0;

const saved = vscode.getState();
if (saved?.mode && MODES.includes(saved.mode)) mode.value = saved.mode;

// ---- transcript -----------------------------------------------------------
function turnBox(event: TurnEvent): HTMLDivElement {
  let box = turns.get(event.turnId);
  if (!box) {
    box = el('div', 'turn');
    box.dataset.turn = event.turnId;
    turns.set(event.turnId, box);
    log.appendChild(box);
  }
  return box;
}

function appendStream(box: HTMLElement, className: string, text: string): void {
  let last = box.lastElementChild;
  if (!last || !last.classList.contains(className)) {
    last = el('div', className);
    box.appendChild(last);
  }
  last.textContent = (last.textContent ?? '') + text;
}

function toolRow(box: HTMLElement, event: TurnEvent, className: string, state?: string): HTMLDetailsElement {
  const row = el('details', className);
  const summary = el('summary');
  summary.appendChild(el('span', 'tool-name', event.tool || 'tool'));
  summary.appendChild(el('span', 'tool-state', state));
  row.appendChild(summary);
  box.appendChild(row);
  return row;
}

function renderToolEnd(box: HTMLElement, event: TurnEvent): void {
  const row = (event.callId ? tools.get(event.callId) : undefined) ?? toolRow(box, event, 'tool');
  const ok = event.ok !== false;
  row.classList.remove('running');
  row.classList.add(ok ? 'ok' : 'error');
  const state = row.querySelector('.tool-state');
  if (state) state.textContent = ok ? 'ok' : 'error';
  if (event.text) row.appendChild(el('pre', 'tool-output', event.text));
}

function renderEvent(event: TurnEvent): void {
  const box = turnBox(event);
  switch (event.kind) {
    case 'text':
      appendStream(box, 'text', event.text || '');
      break;
    case 'reasoning':
      appendStream(box, 'reasoning', event.text || '');
      break;
    case 'toolStart': {
      const row = toolRow(box, event, 'tool running', 'running…');
      if (event.text) row.appendChild(el('pre', 'tool-input', event.text));
      if (event.callId) tools.set(event.callId, row);
      break;
    }
    case 'toolEnd':
      renderToolEnd(box, event);
      break;
    case 'retry':
      box.appendChild(el('div', 'retry', event.text || 'retrying'));
      break;
    case 'usage':
      if (event.usage) box.appendChild(el('div', 'usage', usageText(event.usage, event.attempt ?? 1)));
      break;
    case 'error':
      box.appendChild(el('div', 'error', event.text || 'error'));
      break;
    case 'end':
      box.classList.add('ended');
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

function renderCompaction(event: CompactionEvent): void {
  let text: string;
  if (event.stage === 'start') {
    text = `Compacting (${event.kind}) from ${k(event.tokensBefore)} tokens…`;
  } else if (event.stage === 'done') {
    text = `Compacted (${event.kind}): ${k(event.tokensBefore)} → ${k(event.tokensAfter ?? event.tokensBefore)} tokens`;
  } else {
    text = `Compaction (${event.kind}) failed: ${event.error || 'unknown error'}`;
  }
  log.appendChild(el('div', 'compaction ' + event.stage, text));
}

function renderResult(result: TurnResult): void {
  const usage = result.usage || { inputTokens: 0, outputTokens: 0, cost: null };
  const text = `${result.finishReason} · ${usageText(usage, 1)}`;
  const box = turns.get(result.turnId) || log;
  box.appendChild(el('div', 'result ' + result.finishReason, text));
  if (result.error) box.appendChild(el('div', 'error', result.error));
}

const renderers: { [K in ChatEntry['kind']]: (entry: Extract<ChatEntry, { kind: K }>) => void } = {
  user: (entry) => {
    const row = el('div', 'user');
    row.appendChild(el('span', 'mode', entry.mode));
    row.appendChild(el('span', 'user-text', entry.text));
    log.appendChild(row);
  },
  event: (entry) => renderEvent(entry.event),
  compaction: (entry) => renderCompaction(entry.event),
  result: (entry) => renderResult(entry.result),
  stopped: () => log.appendChild(el('div', 'stopped', 'Stopped.')),
  error: (entry) => log.appendChild(el('div', 'error', entry.text)),
};

function render(entry: ChatEntry): void {
  (renderers[entry.kind] as (entry: ChatEntry) => void)(entry);
}

function setBusy(busy: boolean): void {
  send.disabled = busy;
  stop.disabled = !busy;
  document.body.classList.toggle('busy', busy);
}

const handlers: Handlers<ToWebview> = {
  reset: (message) => {
    log.textContent = '';
    turns.clear();
    tools.clear();
    message.entries.forEach(render);
    setBusy(message.busy);
  },
  entries: (message) => message.entries.forEach(render),
  busy: (message) => setBusy(message.busy),
  files: (message) => {
    files = message.files;
    updateCompletions();
  },
  focus: () => prompt.focus(),
};

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  if (dispatch(handlers, event.data)) {
    log.scrollTop = log.scrollHeight;
  }
});

// ---- @file completion -----------------------------------------------------
function mentionAtCursor(): { query: string; start: number } | null {
  const before = prompt.value.slice(0, prompt.selectionStart);
  const m = /(^|\s)@([^\s@]*)$/.exec(before);
  return m ? { query: m[2], start: before.length - m[2].length } : null;
}

function hideCompletions(): void {
  list.hidden = true;
  matches = [];
}

function updateCompletions(): void {
  const mention = mentionAtCursor();
  if (!mention) return hideCompletions();
  if (files === null) {
    vscode.postMessage({ type: 'requestFiles' });
    return;
  }
  const q = mention.query.toLowerCase();
  const starts = files.filter((f) => f.toLowerCase().startsWith(q));
  const contains = files.filter((f) => !f.toLowerCase().startsWith(q) && f.toLowerCase().includes(q));
  matches = starts.concat(contains).slice(0, MAX_SHOWN_COMPLETIONS);
  if (matches.length === 0) return hideCompletions();
  selected = Math.min(selected, matches.length - 1);
  list.textContent = '';
  matches.forEach((file, i) => {
    const item = el('li', i === selected ? 'selected' : '', file);
    item.setAttribute('role', 'option');
    item.addEventListener('mousedown', (ev) => {
      ev.preventDefault();
      accept(i);
    });
    list.appendChild(item);
  });
  list.hidden = false;
}

function accept(index: number): void {
  const mention = mentionAtCursor();
  if (!mention || !matches[index]) return hideCompletions();
  const end = prompt.selectionStart;
  const inserted = matches[index] + ' ';
  prompt.value = prompt.value.slice(0, mention.start) + inserted + prompt.value.slice(end);
  const cursor = mention.start + inserted.length;
  prompt.setSelectionRange(cursor, cursor);
  hideCompletions();
}

// ---- composer ---------------------------------------------------------------
function submit(): void {
  const text = prompt.value.trim();
  if (!text || send.disabled) return;
  const chosen = MODES.find((m) => m === mode.value) ?? MODES[0];
  vscode.postMessage({ type: 'send', text, mode: chosen });
  prompt.value = '';
  hideCompletions();
}

/** Completion keys while the list is open; true when the key was used. */
function completionKey(e: KeyboardEvent): boolean {
  if (list.hidden || matches.length === 0) return false;
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    selected = (selected + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length;
    updateCompletions();
  } else if (e.key === 'Enter' || e.key === 'Tab') {
    accept(selected);
  } else if (e.key === 'Escape') {
    hideCompletions();
  } else {
    return false;
  }
  e.preventDefault();
  return true;
}

prompt.addEventListener('input', () => {
  selected = 0;
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
mode.addEventListener('change', () => {
  const chosen = MODES.find((m) => m === mode.value);
  if (chosen) vscode.setState({ mode: chosen });
});

vscode.postMessage({ type: 'ready' });
document.body.dataset.ready = 'true';
