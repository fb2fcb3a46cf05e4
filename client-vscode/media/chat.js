// Cairn chat webview: renders the transcript the extension sends, and sends
// prompts, Stop and @file completion requests back. Text is always inserted
// with textContent (never as HTML).
(function () {
  const vscode = acquireVsCodeApi();
  const MAX_SHOWN_COMPLETIONS = 50;
  const log = document.getElementById('log');
  const form = document.getElementById('composer');
  const prompt = document.getElementById('prompt');
  const mode = document.getElementById('mode');
  const send = document.getElementById('send');
  const stop = document.getElementById('stop');
  const list = document.getElementById('completions');

  const turns = new Map(); // turnId -> container element
  const tools = new Map(); // callId -> <details>
  let files = null; // workspace-relative paths, loaded on the first "@"
  let matches = [];
  let selected = 0;

  const saved = vscode.getState();
  if (saved && saved.mode) mode.value = saved.mode;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function k(tokens) {
    return tokens >= 1000 ? Math.round(tokens / 1000) + 'k' : String(tokens);
  }

  function turnBox(event) {
    let box = turns.get(event.turnId);
    if (!box) {
      box = el('div', 'turn');
      box.dataset.turn = event.turnId;
      turns.set(event.turnId, box);
      log.appendChild(box);
    }
    return box;
  }

  function appendStream(box, className, text) {
    let last = box.lastElementChild;
    if (!last || !last.classList.contains(className)) {
      last = el('div', className);
      box.appendChild(last);
    }
    last.textContent += text;
  }

  function renderEvent(event) {
    const box = turnBox(event);
    switch (event.kind) {
      case 'text':
        appendStream(box, 'text', event.text || '');
        break;
      case 'reasoning':
        appendStream(box, 'reasoning', event.text || '');
        break;
      case 'toolStart': {
        const row = el('details', 'tool running');
        const summary = el('summary');
        summary.appendChild(el('span', 'tool-name', event.tool || 'tool'));
        summary.appendChild(el('span', 'tool-state', 'running…'));
        row.appendChild(summary);
        if (event.text) row.appendChild(el('pre', 'tool-input', event.text));
        if (event.callId) tools.set(event.callId, row);
        box.appendChild(row);
        break;
      }
      case 'toolEnd': {
        let row = event.callId ? tools.get(event.callId) : undefined;
        if (!row) {
          row = el('details', 'tool');
          const summary = el('summary');
          summary.appendChild(el('span', 'tool-name', event.tool || 'tool'));
          summary.appendChild(el('span', 'tool-state'));
          row.appendChild(summary);
          box.appendChild(row);
        }
        const ok = event.ok !== false;
        row.classList.remove('running');
        row.classList.add(ok ? 'ok' : 'error');
        row.querySelector('.tool-state').textContent = ok ? 'ok' : 'error';
        if (event.text) row.appendChild(el('pre', 'tool-output', event.text));
        break;
      }
      case 'error':
        box.appendChild(el('div', 'error', event.text || 'error'));
        break;
      case 'end':
        box.classList.add('ended');
        break;
    }
  }

  function renderCompaction(event) {
    let text;
    if (event.stage === 'start') {
      text = `Compacting (${event.kind}) from ${k(event.tokensBefore)} tokens…`;
    } else if (event.stage === 'done') {
      text = `Compacted (${event.kind}): ${k(event.tokensBefore)} → ${k(event.tokensAfter ?? event.tokensBefore)} tokens`;
    } else {
      text = `Compaction (${event.kind}) failed: ${event.error || 'unknown error'}`;
    }
    log.appendChild(el('div', 'compaction ' + event.stage, text));
  }

  function renderResult(result) {
    const usage = result.usage || { inputTokens: 0, outputTokens: 0 };
    const text = `${result.finishReason} · ${k(usage.inputTokens)} in / ${k(usage.outputTokens)} out`;
    const box = turns.get(result.turnId) || log;
    box.appendChild(el('div', 'result ' + result.finishReason, text));
    if (result.error) box.appendChild(el('div', 'error', result.error));
  }

  function render(entry) {
    switch (entry.kind) {
      case 'user': {
        const row = el('div', 'user');
        row.appendChild(el('span', 'mode', entry.mode));
        row.appendChild(el('span', 'user-text', entry.text));
        log.appendChild(row);
        break;
      }
      case 'event':
        renderEvent(entry.event);
        break;
      case 'compaction':
        renderCompaction(entry.event);
        break;
      case 'result':
        renderResult(entry.result);
        break;
      case 'stopped':
        log.appendChild(el('div', 'stopped', 'Stopped.'));
        break;
      case 'error':
        log.appendChild(el('div', 'error', entry.text));
        break;
    }
  }

  function setBusy(busy) {
    send.disabled = busy;
    stop.disabled = !busy;
    document.body.classList.toggle('busy', busy);
  }

  window.addEventListener('message', (e) => {
    const msg = e.data;
    if (msg.type === 'reset') {
      log.textContent = '';
      turns.clear();
      tools.clear();
      msg.entries.forEach(render);
      setBusy(msg.busy);
    } else if (msg.type === 'entries') {
      msg.entries.forEach(render);
    } else if (msg.type === 'busy') {
      setBusy(msg.busy);
    } else if (msg.type === 'files') {
      files = msg.files;
      updateCompletions();
    } else if (msg.type === 'focus') {
      prompt.focus();
    } else {
      return;
    }
    log.scrollTop = log.scrollHeight;
  });

  // ---- @file completion -------------------------------------------------
  function mentionAtCursor() {
    const before = prompt.value.slice(0, prompt.selectionStart);
    const m = /(^|\s)@([^\s@]*)$/.exec(before);
    return m ? { query: m[2], start: before.length - m[2].length } : null;
  }

  function hideCompletions() {
    list.hidden = true;
    matches = [];
  }

  function updateCompletions() {
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

  function accept(index) {
    const mention = mentionAtCursor();
    if (!mention || !matches[index]) return hideCompletions();
    const end = prompt.selectionStart;
    const inserted = matches[index] + ' ';
    prompt.value = prompt.value.slice(0, mention.start) + inserted + prompt.value.slice(end);
    const cursor = mention.start + inserted.length;
    prompt.setSelectionRange(cursor, cursor);
    hideCompletions();
  }

  // ---- composer ---------------------------------------------------------
  function submit() {
    const text = prompt.value.trim();
    if (!text || send.disabled) return;
    vscode.postMessage({ type: 'send', text, mode: mode.value });
    prompt.value = '';
    hideCompletions();
  }

  prompt.addEventListener('input', () => {
    selected = 0;
    updateCompletions();
  });
  prompt.addEventListener('keydown', (e) => {
    if (!list.hidden && matches.length > 0) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        selected = (selected + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length;
        updateCompletions();
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        accept(selected);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        hideCompletions();
        return;
      }
    }
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
  mode.addEventListener('change', () => vscode.setState({ mode: mode.value }));

  vscode.postMessage({ type: 'ready' });
  document.body.dataset.ready = 'true';
})();
