// Drives `cairn acp` with the official ACP TypeScript SDK (@agentclientprotocol/sdk, its
// client app), as an editor would: file reads and writes, permissions and terminals served
// here. Env: PYTHON (interpreter), WORKSPACE (cwd), EXTRA (an additional directory),
// PHASE ("turns": a new session and its prompts; "load": a new process loading SESSION_ID;
// "current": what the current schema adds — notices, tool-call names, `$/cancel_request`).
// Prints one JSON line with what it saw; exits 1 on a timeout or a protocol error.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import * as acp from '@agentclientprotocol/sdk';

const TIMEOUT_MS = 90000;
const root = process.env.WORKSPACE;
const extra = process.env.EXTRA;
const appPath = join(root, 'app.py');
// What the editor shows for app.py: unsaved, unlike the file on disk.
const UNSAVED = 'x = 1  # unsaved\n';

const within = (promise, what) => {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout waiting for ${what}`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
};

const agent = spawn(process.env.PYTHON ?? 'python3', ['-m', 'cairn', 'acp'],
  { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
// Every raw line the agent writes, to see answers the SDK does not hand to us (id null).
const rawLines = [];
let pendingText = '';
agent.stdout.on('data', (data) => {
  pendingText += data.toString('utf8');
  const lines = pendingText.split('\n');
  pendingText = lines.pop();
  for (const line of lines) if (line.trim()) rawLines.push(JSON.parse(line));
});

const updates = [];
const waiters = [];
const seen = { reads: [], writes: [], permissions: [], terminals: [] };
const editor = new Map([[appPath, UNSAVED]]);
// "turns": reject, then allow once; "current": commands allowed once, the trust question
// left unanswered (cancelled), so the folder stays restricted with a notice.
const permissionAnswers = ['reject_once', 'allow_once'];
const terminals = new Map();

function record(params) {
  updates.push(params);
  for (const waiter of [...waiters]) {
    if (waiter.test(params)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(params);
    }
  }
}
const waitForUpdate = (test, what) => within(new Promise((resolve) => {
  const found = updates.find(test);
  if (found) resolve(found); else waiters.push({ test, resolve });
}), what);

const client = acp.client({ name: 'cairn-acp-test' })
  .onNotification(acp.methods.client.session.update, ({ params }) => record(params))
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    seen.reads.push(params.path);
    return { content: editor.get(params.path) ?? readFileSync(params.path, 'utf8') };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    seen.writes.push({ path: params.path, content: params.content });
    editor.set(params.path, params.content);
    writeFileSync(params.path, params.content);
    return {};
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    if (process.env.PHASE === 'current') {
      const trust = params.toolCall.toolCallId.startsWith('cairn-trust-');
      seen.permissions.push({ toolCall: params.toolCall, options: params.options, answered: trust ? 'cancelled' : 'allow-once' });
      return trust ? { outcome: { outcome: 'cancelled' } }
        : { outcome: { outcome: 'selected', optionId: 'allow-once' } };
    }
    const kind = permissionAnswers.shift() ?? 'reject_once';
    const option = params.options.find((o) => o.kind === kind);
    seen.permissions.push({ toolCall: params.toolCall, options: params.options, answered: option.optionId });
    return { outcome: { outcome: 'selected', optionId: option.optionId } };
  })
  .onRequest(acp.methods.client.terminal.create, ({ params }) => {
    const terminalId = `term-${terminals.size + 1}`;
    seen.terminals.push({ terminalId, command: params.command, args: params.args, cwd: params.cwd });
    const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd });
    const terminal = { proc, output: '', status: null };
    proc.stdout.on('data', (d) => { terminal.output += d; });
    proc.stderr.on('data', (d) => { terminal.output += d; });
    terminal.exited = new Promise((resolve) => proc.on('exit', (exitCode, signal) => {
      terminal.status = { exitCode, signal };
      resolve(terminal.status);
    }));
    terminals.set(terminalId, terminal);
    return { terminalId };
  })
  .onRequest(acp.methods.client.terminal.waitForExit, ({ params, signal }) => {
    if (process.env.PHASE !== 'current') return terminals.get(params.terminalId).exited;
    // "current": the wait ends only when the agent cancels it (`$/cancel_request`).
    seen.waits = (seen.waits ?? 0) + 1;
    return new Promise((_, reject) => signal.addEventListener('abort', () => {
      seen.waitAborted = true;
      reject(new Error('cancelled by the agent'));
    }));
  })
  .onRequest(acp.methods.client.terminal.output, ({ params }) => {
    const terminal = terminals.get(params.terminalId);
    return { output: terminal.output, truncated: false, exitStatus: terminal.status ?? undefined };
  })
  .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
    terminals.get(params.terminalId).proc.kill('SIGKILL');
    return {};
  })
  .onRequest(acp.methods.client.terminal.release, ({ params }) => {
    const terminal = terminals.get(params.terminalId);
    if (terminal && terminal.status === null) terminal.proc.kill('SIGKILL');
    seen.released = [...(seen.released ?? []), params.terminalId];
    terminals.delete(params.terminalId);
    return {};
  });

async function errorOf(promise) {
  try {
    await promise;
    return null;
  } catch (error) {
    return { code: error.code, message: error.message };
  }
}

const since = (mark, sessionId) => updates.slice(mark).filter((u) => u.sessionId === sessionId)
  .map((u) => u.update);

async function turns(ctx, init) {
  const created = await within(ctx.request(acp.methods.agent.session.new,
    { cwd: root, additionalDirectories: [extra], mcpServers: [] }), 'session/new');
  const sessionId = created.sessionId;
  await waitForUpdate((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'usage_update',
    'the first usage_update');

  let mark = updates.length;
  const first = await within(ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [
    { type: 'text', text: 'Fix x in' },
    { type: 'resource_link', uri: pathToFileURL(appPath).href, name: 'app.py' },
  ] }), 'the first prompt');
  const firstUpdates = since(mark, sessionId);

  mark = updates.length;
  const slow = ctx.request(acp.methods.agent.session.prompt,
    { sessionId, prompt: [{ type: 'text', text: 'Say the alphabet slowly' }] });
  await waitForUpdate((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk'
    && updates.indexOf(u) >= mark, 'the slow answer to start');
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
  const cancelled = await within(slow, 'the cancelled prompt');
  const cancelledText = since(mark, sessionId).filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => u.content.text).join('');

  const third = await within(ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [
    { type: 'text', text: 'Still there? See' },
    { type: 'resource', resource: { uri: pathToFileURL(appPath).href, text: 'x = 3  # typed, not saved\n' } },
    { type: 'resource_link', uri: pathToFileURL(join(extra, 'lib.md')).href, name: 'lib.md' },
  ] }), 'the third prompt');
  const manifest = await within(ctx.request('_cairn/contextManifest', { sessionId }), '_cairn/contextManifest');

  // Bad input: not JSON at all, then bad params, then an unknown method; the agent keeps serving.
  const rawBefore = rawLines.length;
  agent.stdin.write('{"jsonrpc": "2.0", "id": 99, oops\n');
  const parseError = await within(new Promise((resolve) => {
    const poll = () => {
      const found = rawLines.slice(rawBefore).find((m) => m.id === null && m.error);
      if (found) resolve(found.error); else setTimeout(poll, 20);
    };
    poll();
  }), 'the parse error');
  const badParams = await errorOf(ctx.request('_cairn/goal', { sessionId, focus: 7 }));
  const unknownSession = await errorOf(ctx.request(acp.methods.agent.session.prompt,
    { sessionId: 'no-such-session', prompt: [{ type: 'text', text: 'hi' }] }));
  const unknownMethod = await errorOf(ctx.request('_cairn/nope', {}));
  const tree = await within(ctx.request('_cairn/goalTree', { sessionId }), '_cairn/goalTree');
  return {
    initialize: init, sessionId, modes: created.modes, first, firstUpdates, cancelled, cancelledText,
    third, manifest, parseError, badParams, unknownSession, unknownMethod, tree,
  };
}

// The current schema's additions: a notice (the trust question left unanswered), tool calls
// with their name, and `$/cancel_request` when a cancelled turn stops waiting for a command.
async function current(ctx) {
  // Marked before session/new: the trust question's tool call may come before its answer.
  const mark = updates.length;
  const { sessionId } = await within(ctx.request(acp.methods.agent.session.new,
    { cwd: root, mcpServers: [] }), 'session/new');
  const running = ctx.request(acp.methods.agent.session.prompt,
    { sessionId, prompt: [{ type: 'text', text: 'Sleep a while' }] });
  await within(new Promise((resolve) => {
    const poll = () => (seen.waits ? resolve() : setTimeout(poll, 20));
    poll();
  }), 'terminal/wait_for_exit');
  await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
  const cancelled = await within(running, 'the cancelled prompt');
  const cancelRequests = rawLines.filter((m) => m.method === '$/cancel_request');
  return { sessionId, cancelled, updates: since(mark, sessionId), cancelRequests };
}

async function load(ctx) {
  const sessionId = process.env.SESSION_ID;
  const mark = updates.length;
  const loaded = await within(ctx.request(acp.methods.agent.session.load,
    { sessionId, cwd: root, mcpServers: [] }), 'session/load');
  const replayed = since(mark, sessionId);
  const listed = await within(ctx.request(acp.methods.agent.session.list, { cwd: root }), 'session/list');
  const deletedUnknown = await within(ctx.request(acp.methods.agent.session.delete,
    { sessionId: 'never-was' }), 'session/delete of an unknown session');
  await within(ctx.request(acp.methods.agent.session.delete, { sessionId }), 'session/delete');
  const afterDelete = await within(ctx.request(acp.methods.agent.session.list, { cwd: root }),
    'session/list after the delete');
  return { loaded, replayed, listed, deletedUnknown, afterDelete };
}

let result = null;
try {
  const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
  result = await client.connectWith(stream, async (ctx) => {
    const init = await within(ctx.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true }, terminal: true, session: { notices: {} },
      },
      clientInfo: { name: 'cairn-acp-test', version: '0.0.0' },
    }), 'initialize');
    if (process.env.PHASE === 'current') return current(ctx);
    return process.env.PHASE === 'load' ? load(ctx) : turns(ctx, init);
  });
  result.seen = seen;
} catch (error) {
  console.error('FAIL:', error.stack ?? error.message);
  process.exitCode = 1;
}
agent.stdin.end();
const code = await within(new Promise((resolve) => agent.on('exit', resolve)), 'the agent to exit');
console.log(JSON.stringify({ ...result, agentExit: code }));
