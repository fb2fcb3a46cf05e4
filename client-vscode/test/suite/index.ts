/**
 * Extension tests that run INSIDE a real VS Code extension host (code-server),
 * against the real `cairn serve` of this repository and the scripted model of
 * test/workspace (script.jsonl is consumed in order: the tests run in order).
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ChatEntry } from '../../src/chat';
import { mentions } from '../../src/chat';
import { applyTextEdits, offsetIn } from '../../src/applyEdit';
import { transcriptEntries } from '../../src/chatTranscript';
import { lineCounts } from '../../src/review';
import { configuredHere, userConfigPath } from '../../src/startupGate';
import { toWireDiagnostic } from '../../src/diagnostics';
import type { CairnApi } from '../../src/extension';
import type { CompactResult, Goal, TurnEvent, TurnResult } from '../../src/protocol';
import { TestCase, runTests, screenshot, waitFor } from './harness';
import { trustTests } from './trust';

const EXTENSION_ID = 'cairn-dev.cairn';
const SCRIPTED_ANSWER = 'Hello from the script: all done.';
const SLOW_LAST_WORD = 'word60';
const SLOW_FIRST_WORD = 'word1';
const CRASH_LOOP_TIMEOUT_MS = 60_000;
const VERSION_AFTER_EDITS = 'VERSION = "0.2.0"';
/** test/fixtures (this file runs from out/test/suite). */
const FIXTURES = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures');

let api: CairnApi;
let firstSessionId: string;
const collection = vscode.languages.createDiagnosticCollection('cairn-test');

function folderUri(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test workspace is open');
  return folder.uri;
}

// The script of the "Fix with Cairn" test's new chat (written into the test workspace).
const FIX_SCRIPT = 'fix-script.jsonl';

function sampleUri(): vscode.Uri {
  return vscode.Uri.joinPath(folderUri(), 'sample.py');
}

function workspaceUri(name: string): vscode.Uri {
  return vscode.Uri.joinPath(folderUri(), name);
}

function onDisk(uri: vscode.Uri): string {
  return fs.readFileSync(uri.fsPath, 'utf8');
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
}

/** Runs `turn` and returns it with the workspace-relative names of the documents saved meanwhile. */
async function recordingSaves<T>(turn: () => Thenable<T>): Promise<[T, string[]]> {
  const saved: string[] = [];
  const subscription = vscode.workspace.onDidSaveTextDocument((doc) => saved.push(vscode.workspace.asRelativePath(doc.uri)));
  try {
    return [await turn(), saved];
  } finally {
    subscription.dispose();
  }
}

function events(turnId: string): TurnEvent[] {
  return api.chat
    .transcript()
    .flatMap((entry: ChatEntry) => (entry.kind === 'event' && entry.event.turnId === turnId ? [entry.event] : []));
}

function turnText(turnId: string): string {
  return events(turnId)
    .filter((e) => e.kind === 'text')
    .map((e) => e.text ?? '')
    .join('');
}

function flatGoals(goals: readonly Goal[]): Goal[] {
  return goals.flatMap((g) => [g, ...flatGoals(g.children)]);
}

async function manifestSources(message: string): Promise<string[]> {
  const manifest = await api.client.request('cairn/contextManifest', { message, uri: sampleUri().toString() });
  return manifest.blocks.filter((b) => b.included).map((b) => b.source);
}

const tests: TestCase[] = [
  [
    'activates and starts cairn serve from the workspace settings',
    async () => {
      const extension = vscode.extensions.getExtension<CairnApi>(EXTENSION_ID);
      assert.ok(extension, `${EXTENSION_ID} is loaded`);
      api = await extension.activate();
      assert.strictEqual(await api.ready, true, `the server started: ${api.client.lastError ?? ''}`);
      assert.strictEqual(api.client.state, 'running');
      const view = await api.goals.refresh();
      assert.ok(view, 'cairn/goalTree answered');
      firstSessionId = view.sessionId;
      assert.strictEqual(api.client.sessionId, firstSessionId, 'a session is focused from the start');
      await vscode.commands.executeCommand('workbench.view.extension.cairn');
      await screenshot('activated');
    },
  ],
  [
    'editor diagnostics are converted to the LSP shape (1-based severity, code value)',
    async () => {
      const d = new vscode.Diagnostic(new vscode.Range(1, 2, 1, 5), 'bad', vscode.DiagnosticSeverity.Error);
      d.source = 'lint';
      d.code = { value: 'E1', target: vscode.Uri.parse('https://example.invalid/E1') };
      assert.deepStrictEqual(toWireDiagnostic(d), {
        range: { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } },
        message: 'bad',
        severity: 1,
        source: 'lint',
        code: 'E1',
      });
      const hint = new vscode.Diagnostic(new vscode.Range(0, 0, 0, 1), 'h', vscode.DiagnosticSeverity.Hint);
      assert.strictEqual(toWireDiagnostic(hint).severity, 4);
    },
  ],
  [
    '@path mentions become references (trailing punctuation dropped, e-mail addresses ignored)',
    async () => {
      assert.deepStrictEqual(mentions('see @src/a.py, and @b.md. mail me@example.com'), ['src/a.py', 'b.md']);
      assert.deepStrictEqual(mentions('@a.py @a.py'), ['a.py']);
    },
  ],
  [
    "the startup gate: a folder with a cairn.toml starts the server at once; Cairn's own config.toml is where the server reads it",
    async () => {
      assert.strictEqual(await configuredHere(), true, 'test/workspace has a cairn.toml');
      const home = os.homedir();
      assert.strictEqual(userConfigPath({ XDG_CONFIG_HOME: '/x' }, 'linux'), path.join('/x', 'cairn', 'config.toml'));
      assert.strictEqual(userConfigPath({}, 'linux'), path.join(home, '.config', 'cairn', 'config.toml'));
      const mac = path.join(home, 'Library', 'Application Support', 'cairn', 'config.toml');
      assert.strictEqual(userConfigPath({}, 'darwin'), mac);
      assert.strictEqual(userConfigPath({ LOCALAPPDATA: 'C:/L' }, 'win32'), path.join('C:/L', 'cairn', 'config.toml'));
      assert.strictEqual(userConfigPath({ CAIRN_CONFIG: '/team.toml' }, 'linux'), '/team.toml');
      const events = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON.activationEvents as string[];
      assert.ok(events.includes('onStartupFinished'), `activation events: ${events.join(', ')}`);
    },
  ],
  [
    'edits are computed before they are applied, and a transcript becomes the rows the chat shows',
    async () => {
      const text = 'a\r\nbb\r\nccc';
      const edits = [new vscode.TextEdit(new vscode.Range(1, 0, 1, 2), 'B'), new vscode.TextEdit(new vscode.Range(2, 3, 2, 3), '!')];
      assert.strictEqual(applyTextEdits(text, edits, offsetIn(text)), 'a\r\nB\r\nccc!');
      assert.deepStrictEqual(lineCounts('x\ny\nz\n', 'x\nY\nY2\nz\n'), { added: 2, removed: 1 });
      const event = (kind: TurnEvent['kind'], text: string | null = null): TurnEvent => ({
        sessionId: 's', turnId: 't1', kind, text, tool: null, callId: null, ok: null, detail: null,
        attempt: null, waitS: null, model: null, usage: null,
      });
      const compaction = { sessionId: 's', stage: 'done' as const, kind: 'prune' as const, tokensBefore: 9, tokensAfter: 3, error: null };
      const rows = transcriptEntries({
        sessionId: 's',
        title: 'hello',
        parentId: null,
        turns: [
          {
            turnId: 't1', message: 'hello', references: ['a.py'], mode: 'plan', startedAt: '2026-01-01T00:00:00Z',
            finishReason: 'stop', error: null, usage: { inputTokens: 5, outputTokens: 2, cost: null },
            events: [event('text', 'hi'), event('end', 'stop')], compactions: [{ at: 1, event: compaction }],
            changedFiles: ['a.py'], reverted: true,
          },
        ],
      });
      assert.deepStrictEqual(rows.map((r) => r.kind), ['user', 'event', 'compaction', 'event', 'result', 'reverted']);
      const result = rows[4];
      assert.ok(result.kind === 'result' && result.result.changedFiles[0] === 'a.py');
    },
  ],
  [
    'diagnostics from any provider reach the server, and clearing them reaches it too',
    async () => {
      const range = new vscode.Range(4, 4, 4, 10);
      const diagnostic = new vscode.Diagnostic(range, 'cairn-test: suspicious return', vscode.DiagnosticSeverity.Warning);
      diagnostic.source = 'cairn-test';
      collection.set(sampleUri(), [diagnostic]);
      await waitFor('a diagnostics block in the manifest', async () =>
        (await manifestSources('look at sample.py')).includes('diagnostics'),
      );
      collection.set(sampleUri(), []);
      await waitFor('the diagnostics block to go away', async () =>
        !(await manifestSources('look at sample.py')).includes('diagnostics'),
      );
    },
  ],
  [
    'the goal tree view follows cairn/goal (add, focus, done)',
    async () => {
      await vscode.commands.executeCommand('cairn.goals.add', 'Write the tests, Ship it');
      const added = await waitFor('two goals in the view', () => {
        const goals = flatGoals(api.goals.view?.tree.goals ?? []);
        return goals.length >= 2 ? goals : undefined;
      });
      const tests = added.find((g) => g.description === 'Write the tests');
      assert.ok(tests, `"Write the tests" is shown: ${JSON.stringify(added)}`);
      assert.deepStrictEqual(api.goals.getChildren().map((g) => g.description).slice(-2), ['Write the tests', 'Ship it']);
      await vscode.commands.executeCommand('cairn.goal.done', tests, 'tests written');
      const done = await waitFor('the goal to be completed', () => {
        const goal = flatGoals(api.goals.view?.tree.goals ?? []).find((g) => g.id === tests.id);
        return goal?.status === 'completed' ? goal : undefined;
      });
      assert.strictEqual(done.summary, 'tests written');
      const item = api.goals.getTreeItem(done);
      assert.match(String(item.description), /tests written/);
      assert.strictEqual(item.contextValue, 'goal.completed');
      const ship = flatGoals(api.goals.view?.tree.goals ?? []).find((g) => g.description === 'Ship it');
      assert.ok(ship);
      await vscode.commands.executeCommand('cairn.goal.focus', ship);
      await waitFor('"Ship it" to be current', () => api.goals.view?.tree.currentId === ship.id);
      assert.match(String(api.goals.getTreeItem(ship).description), /current/);
    },
  ],
  [
    'Ask runs a scripted turn and the chat panel records its events',
    async () => {
      const result = await vscode.commands.executeCommand<TurnResult>('cairn.ask', 'Say hello');
      assert.ok(result, 'the turn answered');
      assert.strictEqual(result.finishReason, 'stop');
      assert.ok(result.text.includes(SCRIPTED_ANSWER), `result text: ${result.text}`);
      const transcript = api.chat.transcript();
      assert.ok(transcript.some((e) => e.kind === 'user' && e.text === 'Say hello'), 'the prompt is shown');
      await waitFor('the end event', () => events(result.turnId).some((e) => e.kind === 'end'));
      assert.ok(turnText(result.turnId).includes(SCRIPTED_ANSWER), `streamed text: ${turnText(result.turnId)}`);
      const starts = events(result.turnId).filter((e) => e.kind === 'toolStart' && e.tool === 'goal');
      const ends = events(result.turnId).filter((e) => e.kind === 'toolEnd' && e.tool === 'goal');
      assert.strictEqual(starts.length, 1, 'one goal tool call started');
      assert.strictEqual(ends.length, 1, 'one goal tool call ended');
      assert.strictEqual(ends[0].ok, true);
      assert.ok(transcript.some((e) => e.kind === 'result' && e.result.turnId === result.turnId));
      await waitFor('"Read the code" in the goal tree (cairn/goalTreeChanged)', () =>
        flatGoals(api.goals.view?.tree.goals ?? []).some((g) => g.description === 'Read the code'),
      );
    },
  ],
  [
    'the status bar shows used / window tokens after a turn',
    async () => {
      const stats = await waitFor('context stats with used input', () =>
        api.meter.stats && api.meter.stats.usedInput > 0 ? api.meter.stats : undefined,
      );
      const k = (n: number): string => (n < 1000 ? String(n) : `${Math.round(n / 1000)}k`);
      assert.strictEqual(api.meter.text, `Cairn ${k(stats.usedInput)} / ${k(stats.contextWindow)}`);
    },
  ],
  [
    'a running compaction spins the status bar and is shown in the chat (cairn/compaction handling)',
    async () => {
      // Every field, as the server sends it (`wire()` dumps them all).
      const base = { sessionId: firstSessionId, kind: 'summary' as const, tokensBefore: 90_000, tokensAfter: null, error: null };
      api.client.onCompaction.fire({ ...base, stage: 'start' });
      assert.ok(api.meter.text.startsWith('$(sync~spin) Cairn'), api.meter.text);
      api.client.onCompaction.fire({ ...base, stage: 'done', tokensAfter: 12_000 });
      assert.ok(!api.meter.text.includes('sync~spin'), api.meter.text);
      const stages = api.chat
        .transcript()
        .flatMap((e) => (e.kind === 'compaction' ? [`${e.event.stage}:${e.event.tokensAfter ?? ''}`] : []));
      assert.deepStrictEqual(stages.slice(-2), ['start:', 'done:12000']);
    },
  ],
  [
    'Stop cancels a slow turn ($/cancelRequest) and the session stays usable',
    async () => {
      const before = api.chat.transcript().length;
      const pending = vscode.commands.executeCommand<TurnResult | undefined>('cairn.ask', 'Count slowly');
      const first = await waitFor('the first streamed words', () =>
        api.chat
          .transcript()
          .slice(before)
          .find((e) => e.kind === 'event' && e.event.kind === 'text' && (e.event.text ?? '').includes(SLOW_FIRST_WORD)),
      );
      assert.ok(api.chat.busy, 'the turn is running');
      api.chat.stop();
      const result = await pending;
      assert.ok(!api.chat.busy, 'the chat is idle again');
      const turnId = first.kind === 'event' ? first.event.turnId : '';
      const stopped =
        result?.finishReason === 'cancelled' || api.chat.transcript().slice(before).some((e) => e.kind === 'stopped');
      assert.ok(stopped, `the turn was cancelled: ${JSON.stringify(result)}`);
      assert.ok(!turnText(turnId).includes(SLOW_LAST_WORD), 'the reply did not run to its end');
      const view = await api.client.request('cairn/goalTree', {});
      assert.strictEqual(view.sessionId, firstSessionId);
    },
  ],
  [
    'Fix Diagnostic at Cursor runs cairn.fix and the chat shows its turn',
    async () => {
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(sampleUri()));
      const diagnostic = new vscode.Diagnostic(
        new vscode.Range(4, 11, 4, 18),
        'cairn-test: use an f-string',
        vscode.DiagnosticSeverity.Information,
      );
      collection.set(sampleUri(), [diagnostic]);
      editor.selection = new vscode.Selection(4, 12, 4, 12);
      const result = await vscode.commands.executeCommand<TurnResult>('cairn.fixAtCursor');
      assert.ok(result, 'cairn.fix answered with a turn result');
      assert.strictEqual(result.finishReason, 'stop');
      assert.ok(api.chat.transcript().some((e) => e.kind === 'user' && e.text === 'Fix: cairn-test: use an f-string'));
      await waitFor('the fix turn text', () => turnText(result.turnId).includes('Fixed it.'));
      collection.clear();
    },
  ],
  [
    'Show Context Manifest and Show Trace are rendered read-only views that close without a save prompt',
    async () => {
      const manifest = await vscode.commands.executeCommand<string>('cairn.showManifest');
      assert.match(manifest, /^# Cairn context manifest/);
      // Blocks in request order: the tool schemas (the tools zone) first, then the system prompt.
      assert.match(manifest, /\| 1 \| tools \| /);
      assert.match(manifest, /^\| 1 \| tools \| .* \| tools \|$/m, 'each block names its cache zone');
      assert.match(manifest, /^Prompt cache: \*\*\d+\*\* tokens predicted from cache/m);
      assert.match(manifest, /\| \d+ \| system \| harness \|/);
      assert.match(manifest, /\| included \| \d+ \| \d+ \|/);
      const preview = await waitFor('the rendered manifest', () => {
        const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
        return tab?.input instanceof vscode.TabInputWebview && /markdown\.preview/.test(tab.input.viewType) ? tab : undefined;
      });
      assert.match(preview.label, /Cairn context manifest/);
      const source = await vscode.workspace.openTextDocument(
        vscode.Uri.from({ scheme: 'cairn-doc', path: '/views/Cairn context manifest.md' }),
      );
      assert.strictEqual(source.getText(), manifest, 'the manifest is a virtual document');
      assert.strictEqual(source.isDirty, false);
      assert.ok(!vscode.workspace.textDocuments.some((d) => d.isUntitled || d.isDirty), 'nothing unsaved was opened');
      await screenshot('manifest-view');
      const trace = await vscode.commands.executeCommand<string>('cairn.showTrace');
      assert.match(trace, /Read the code/);
      assert.match(trace, /## Sessions/);
      assert.ok(trace.includes(firstSessionId));
      // A save prompt would block this (the tabs are virtual, read-only: there is none).
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await waitFor('every editor closed', () => vscode.window.tabGroups.all.every((g) => g.tabs.length === 0));
      await screenshot('views-closed');
    },
  ],
  [
    'Compact Now answers with a compaction result',
    async () => {
      const result = await vscode.commands.executeCommand<CompactResult>('cairn.compactNow');
      assert.ok(result, 'cairn/compact answered');
      assert.ok(['prune', 'summary', 'none'].includes(result.kind), result.kind);
      assert.strictEqual(result.sessionId, firstSessionId);
      if (result.kind !== 'none') {
        // The server announced it: cairn/compaction start and done, shown in the chat.
        await waitFor(`cairn/compaction start + done for a ${result.kind} compaction`, () => {
          const stages = api.chat
            .transcript()
            .flatMap((e) => (e.kind === 'compaction' && e.event.sessionId === result.sessionId ? [e.event.stage] : []));
          return stages.includes('start') && stages.includes('done');
        });
      }
      assert.ok(!api.meter.text.includes('sync~spin'), 'no spinner once compaction is over');
      const notice = api.chat.transcript().filter((e) => e.kind === 'notice').at(-1);
      assert.ok(notice && notice.kind === 'notice' && notice.text.startsWith('Compact Now:'), JSON.stringify(notice));
      if (result.kind === 'none') assert.match(notice.text, /nothing to compact/);
    },
  ],
  [
    "the agent's edit_file edits are saved: the files on disk change and no document is left dirty",
    async () => {
      const sample = sampleUri();
      const version = workspaceUri('version.py');
      assert.strictEqual(openDocument(sample)?.isDirty, false, 'sample.py is open (earlier tests) and saved');
      assert.strictEqual(openDocument(version), undefined, 'version.py is not open');
      const [result, saved] = await recordingSaves(() =>
        vscode.commands.executeCommand<TurnResult>('cairn.ask', 'Use an f-string and bump the version'),
      );
      assert.ok(result, 'the turn answered');
      assert.strictEqual(result.finishReason, 'stop', JSON.stringify(result));
      const edits = events(result.turnId).filter((e) => e.kind === 'toolEnd' && e.tool === 'edit_file');
      assert.deepStrictEqual(edits.map((e) => e.ok), [true, true], 'both edit_file calls succeeded');
      // Saved by the extension (a server writing the disk itself would not fire onDidSave).
      assert.deepStrictEqual([...saved].sort(), ['sample.py', 'version.py']);
      assert.ok(onDisk(sample).includes('return f"hello {name}"'), onDisk(sample));
      assert.ok(!onDisk(sample).includes('"hello " + name'), onDisk(sample));
      assert.ok(onDisk(version).includes('VERSION = "0.2.0"'), onDisk(version));
      for (const uri of [sample, version]) {
        // VS Code may unload the saved version.py (no editor shows it): openTextDocument gets it either way.
        const doc = openDocument(uri) ?? (await vscode.workspace.openTextDocument(uri));
        assert.strictEqual(doc.isDirty, false, `${uri.fsPath} is not dirty`);
        assert.strictEqual(doc.getText(), onDisk(uri));
      }
    },
  ],
  [
    "an edit to a document with the user's unsaved changes is applied on top and left unsaved",
    async () => {
      const sample = sampleUri();
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(sample));
      const diskBefore = onDisk(sample);
      const userNote = '# unsaved note from the user\n';
      assert.ok(await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), userNote)));
      assert.strictEqual(editor.document.isDirty, true, 'the user left sample.py unsaved');
      const [result, saved] = await recordingSaves(() =>
        vscode.commands.executeCommand<TurnResult>('cairn.ask', 'Give greet a default name'),
      );
      try {
        assert.ok(result, 'the turn answered');
        assert.strictEqual(result.finishReason, 'stop', JSON.stringify(result));
        // The model reads the file first (the unsaved text included): an edit of a file that
        // changed since the model last saw it — here by the user's typing — is refused as stale.
        const reads = events(result.turnId).filter((e) => e.kind === 'toolEnd' && e.tool === 'read_file');
        assert.deepStrictEqual(reads.map((e) => e.ok), [true], 'the read_file call succeeded');
        const edits = events(result.turnId).filter((e) => e.kind === 'toolEnd' && e.tool === 'edit_file');
        assert.deepStrictEqual(edits.map((e) => e.ok), [true], 'the edit_file call succeeded');
        const text = editor.document.getText();
        assert.ok(text.startsWith(userNote), `the user's edit is kept: ${text}`);
        assert.ok(text.includes('def greet(name: str = "world") -> str:'), `the agent's edit is applied: ${text}`);
        assert.strictEqual(editor.document.isDirty, true, 'sample.py is still unsaved');
        assert.deepStrictEqual(saved, [], 'nothing was saved');
        assert.strictEqual(onDisk(sample), diskBefore, 'the file on disk is unchanged');
      } finally {
        await vscode.window.showTextDocument(editor.document);
        await vscode.commands.executeCommand('workbench.action.files.revert');
      }
      assert.strictEqual(editor.document.isDirty, false, 'reverted for the next tests');
    },
  ],
  [
    'an approval waits in the chat with the exact command: Run runs it, Reject does not',
    async () => {
      const pending = vscode.commands.executeCommand<TurnResult>('cairn.ask', 'Run the approved command');
      const asked = await waitFor('an approval in the chat', () => api.approvals.waiting()[0]);
      assert.strictEqual(asked.request.command, 'echo approved-in-chat');
      assert.strictEqual(asked.request.sessionId, api.client.sessionId);
      const shown = api.chat.transcript().find((e) => e.kind === 'approval' && e.id === asked.id);
      assert.ok(shown && shown.kind === 'approval' && shown.state === 'pending', 'the chat shows it, waiting');
      await screenshot('approval-waiting');
      assert.ok(api.approvals.answer(asked.id, 'once'));
      const ran = await pending;
      assert.strictEqual(ran.finishReason, 'stop');
      const [end] = events(ran.turnId).filter((e) => e.kind === 'toolEnd' && e.tool === 'run_command');
      assert.strictEqual(end.ok, true);
      assert.match(end.detail ?? '', /approved-in-chat/);

      const second = vscode.commands.executeCommand<TurnResult>('cairn.ask', 'Run the other command');
      const next = await waitFor('the second approval', () => api.approvals.waiting()[0]);
      assert.strictEqual(next.request.command, 'echo rejected-in-chat');
      assert.ok(api.approvals.answer(next.id, 'reject'));
      const rejected = await second;
      const [refused] = events(rejected.turnId).filter((e) => e.kind === 'toolEnd' && e.tool === 'run_command');
      assert.strictEqual(refused.ok, false);
      assert.match(refused.text ?? '', /not approved by the user: echo rejected-in-chat/);
      await screenshot('approval-answered');
    },
  ],
  [
    'review mode: a rejected edit leaves the file unchanged and the agent is told',
    async () => {
      const config = vscode.workspace.getConfiguration('cairn');
      await config.update('edits.review', true, vscode.ConfigurationTarget.Workspace);
      const version = workspaceUri('version.py');
      const before = onDisk(version);
      assert.ok(before.includes(VERSION_AFTER_EDITS), before);
      try {
        const pending = vscode.commands.executeCommand<TurnResult>('cairn.ask', 'Bump the version to 0.3.0');
        const review = await waitFor('an edit held for review', () => api.reviews.waiting()[0]);
        assert.strictEqual(review.path, 'version.py');
        await waitFor('the review diff editor', () => {
          const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
          return tab?.input instanceof vscode.TabInputTextDiff ? tab : undefined;
        });
        await screenshot('review-diff');
        assert.ok(api.reviews.decide(review.id, false));
        const result = await pending;
        const [end] = events(result.turnId).filter((e) => e.kind === 'toolEnd' && e.tool === 'edit_file');
        assert.strictEqual(end.ok, false);
        assert.match(end.text ?? '', /rejected/);
        assert.strictEqual(onDisk(version), before, 'the file on disk is unchanged');
        const doc = openDocument(version);
        assert.ok(!doc || (doc.getText() === before && !doc.isDirty), 'and so is its editor');
        await screenshot('review-rejected');
      } finally {
        await config.update('edits.review', undefined, vscode.ConfigurationTarget.Workspace);
      }
    },
  ],
  [
    'review mode: typing during the review moves the edit onto its line, or refuses it when the edited text changed',
    async () => {
      const config = vscode.workspace.getConfiguration('cairn');
      await config.update('edits.review', true, vscode.ConfigurationTarget.Workspace);
      // What is on disk tells whether the extension saved the user's typing: no auto save.
      const files = vscode.workspace.getConfiguration('files');
      await files.update('autoSave', 'off', vscode.ConfigurationTarget.Workspace);
      const version = workspaceUri('version.py');
      const before = onDisk(version);
      const typed = '# typed during the review\n';
      const document = await vscode.workspace.openTextDocument(version);
      // The diff of a review takes the editor's place: show the file again to type in it.
      const typeIn = async (change: (edit: vscode.TextEditorEdit) => void): Promise<void> => {
        const editor = await vscode.window.showTextDocument(document, { preview: false });
        assert.ok(await editor.edit(change));
      };
      try {
        await vscode.window.showTextDocument(document, { preview: false });
        const pending = vscode.commands.executeCommand<TurnResult>('cairn.ask', 'Bump the version to 0.3.0');
        const review = await waitFor('an edit held for review', () => api.reviews.waiting()[0]);
        await typeIn((edit) => edit.insert(new vscode.Position(0, 0), typed));
        assert.ok(api.reviews.decide(review.id, true));
        const result = await pending;
        const [end] = events(result.turnId).filter((e) => e.kind === 'toolEnd' && e.tool === 'edit_file');
        assert.strictEqual(end.ok, true, end.text ?? undefined);
        const expected = typed + before.replace(VERSION_AFTER_EDITS, 'VERSION = "0.3.0"');
        assert.strictEqual(document.getText(), expected, 'the edit landed on the VERSION line');
        assert.strictEqual(document.isDirty, true, 'typed into, so applied on top and left unsaved');
        assert.strictEqual(onDisk(version), before, 'so the file on disk is unchanged');
        await screenshot('review-typed-rebased');

        const second = vscode.commands.executeCommand<TurnResult>('cairn.ask', 'Bump the version to 0.9.0');
        const next = await waitFor('the second edit held for review', () => api.reviews.waiting()[0]);
        const line = document.getText().split('\n').findIndex((l) => l.startsWith('VERSION = '));
        const typedOver = new vscode.Range(line, 0, line, document.lineAt(line).text.length);
        await typeIn((edit) => edit.replace(typedOver, 'VERSION = "0.3.1"'));
        const mine = document.getText();
        assert.ok(api.reviews.decide(next.id, true));
        const refused = await second;
        const [edit] = events(refused.turnId).filter((e) => e.kind === 'toolEnd' && e.tool === 'edit_file');
        assert.strictEqual(edit.ok, false);
        assert.match(edit.detail ?? edit.text ?? '', /changed while the edit was in review/);
        assert.strictEqual(document.getText(), mine, "the user's text is left as it is");
        assert.strictEqual(onDisk(version), before, 'and the file on disk too');
      } finally {
        api.reviews.expireAll();
        await vscode.window.showTextDocument(document, { preview: false });
        await vscode.commands.executeCommand('workbench.action.files.revert');
        // version.py is a file no editor has open for the tests that follow.
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        await config.update('edits.review', undefined, vscode.ConfigurationTarget.Workspace);
        await files.update('autoSave', undefined, vscode.ConfigurationTarget.Workspace);
      }
      assert.strictEqual(onDisk(version), before, 'nothing was saved over the file');
    },
  ],
  [
    'restoring a checkpoint brings the files back (an edited one and a created one)',
    async () => {
      const version = workspaceUri('version.py');
      const notes = workspaceUri('notes.md');
      const before = onDisk(version);
      const result = await vscode.commands.executeCommand<TurnResult>('cairn.ask', 'Bump to 0.4.0 and write notes');
      assert.strictEqual(result.finishReason, 'stop', JSON.stringify(result));
      // The model last read version.py with the text typed during the review, reverted since:
      // it reads the file again first, else its edit is refused as stale.
      const edits = events(result.turnId).filter((e) => e.kind === 'toolEnd' && e.tool === 'edit_file');
      assert.deepStrictEqual(edits.map((e) => e.ok), [true, true], JSON.stringify(edits));
      assert.deepStrictEqual([...result.changedFiles].sort(), ['notes.md', 'version.py']);
      assert.ok(onDisk(version).includes('0.4.0') && fs.existsSync(notes.fsPath));
      await screenshot('checkpoint-before-restore');
      const restored = await api.chat.restore(result.turnId, true, false, true);
      assert.deepStrictEqual(restored, ['notes.md', 'version.py']);
      assert.strictEqual(onDisk(version), before, 'version.py is back');
      assert.ok(!fs.existsSync(notes.fsPath), 'notes.md, which the turn created, is gone');
      assert.ok(api.chat.transcript().some((e) => e.kind === 'reverted' && e.turnIds.includes(result.turnId)));
      await screenshot('checkpoint-restored');
    },
  ],
  [
    'sessions: fork opens the fork, delete removes it, open switches back',
    async () => {
      const sessions = await api.sessions.refresh();
      assert.ok(sessions.some((s) => s.sessionId === firstSessionId), 'the first session is listed');
      const fork = await vscode.commands.executeCommand<string>('cairn.forkSession');
      assert.ok(fork && fork !== firstSessionId, 'a new session');
      assert.strictEqual(api.client.sessionId, fork, 'the fork is open');
      const forked = api.sessions.sessions.find((s) => s.sessionId === fork);
      assert.ok(forked, 'the fork is listed');
      assert.strictEqual(forked.parentId, firstSessionId);
      const forkGoals = await api.goals.refresh();
      assert.strictEqual(forkGoals?.sessionId, fork, 'requests now carry the fork id');
      assert.ok(await vscode.commands.executeCommand<boolean>('cairn.session.delete', forked, true));
      assert.ok(!api.sessions.sessions.some((s) => s.sessionId === fork), 'the fork is gone');
      const first = api.sessions.sessions.find((s) => s.sessionId === firstSessionId);
      assert.ok(first);
      await vscode.commands.executeCommand('cairn.session.open', first);
      assert.strictEqual(api.client.sessionId, firstSessionId);
    },
  ],
  [
    '"Fix with Cairn" runs in the focused session (a new chat), and reload restores its transcript',
    async () => {
      await vscode.commands.executeCommand('cairn.newChat');
      const focused = api.client.sessionId;
      assert.ok(focused && focused !== firstSessionId, 'a new chat is a new session');
      assert.deepStrictEqual(api.chat.transcript(), [], 'the new chat is empty');
      // A new session reads its script from the first line (the cursor is per session), so
      // the new chat gets a script of its own.
      const config = vscode.workspace.getConfiguration('cairn');
      await vscode.workspace.fs.writeFile(workspaceUri(FIX_SCRIPT), Buffer.from('{"text": "Fixed it in the new chat."}\n'));
      try {
        await config.update('model', `scripted/${FIX_SCRIPT}`, vscode.ConfigurationTarget.Workspace);
        await waitFor('the server to use the fix script', async () => {
          const catalog = await api.client.requestRaw('cairn/models', {});
          return catalog.current === `scripted/${FIX_SCRIPT}`;
        });
        const sample = sampleUri();
        await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(sample));
        const diagnostic = new vscode.Diagnostic(new vscode.Range(4, 11, 4, 18), 'cairn-test: name it', vscode.DiagnosticSeverity.Warning);
        // What a "Fix with Cairn" quick fix runs: the server's cairn.fix with [uri, diagnostic].
        const result = await vscode.commands.executeCommand<TurnResult>('cairn.fix', sample.toString(), toWireDiagnostic(diagnostic));
        assert.ok(result, 'the quick fix answered');
        assert.strictEqual(result.sessionId, focused, 'it ran in the focused session');
        assert.ok(api.chat.transcript().some((e) => e.kind === 'user' && e.text === 'Fix: cairn-test: name it'));
        await waitFor('the fix text in the chat', () => turnText(result.turnId).includes('Fixed it in the new chat.'));
        const shown = api.chat.transcript().map((e) => (e.kind === 'event' ? `${e.event.kind}:${e.event.text ?? ''}` : e.kind));

        const restarted = new Promise<void>((resolve) => {
          const sub = api.client.onDidStart.event(() => {
            sub.dispose();
            resolve();
          });
        });
        await api.client.restart();
        await restarted;
        await api.chat.loaded;
        assert.strictEqual(api.client.sessionId, focused, 'the same session is focused after the restart');
        const reloaded = api.chat.transcript().map((e) => (e.kind === 'event' ? `${e.event.kind}:${e.event.text ?? ''}` : e.kind));
        const text = (rows: string[]): string => rows.filter((r) => r.startsWith('text:')).map((r) => r.slice(5)).join('');
        assert.strictEqual(text(reloaded), text(shown), 'the same answer');
        // Per-call usage and retry rows are live only (the trace keeps the turn's sum).
        const rows = (all: string[]): string[] => all.filter((r) => !/^(text|usage|retry):/.test(r));
        assert.deepStrictEqual(rows(reloaded), rows(shown), 'the same rows, read back from the trace');
        await screenshot('transcript-restored');
      } finally {
        await config.update('model', undefined, vscode.ConfigurationTarget.Workspace);
      }
    },
  ],
  [
    'settings the server can apply live do not restart it',
    async () => {
      let starts = 0;
      const sub = api.client.onDidStart.event(() => starts++);
      const config = vscode.workspace.getConfiguration('cairn');
      try {
        await config.update('maxOutputTokens', 1234, vscode.ConfigurationTarget.Workspace);
        await waitFor('the server to use the new setting', async () => {
          const stats = await api.client.request('cairn/contextStats', {});
          return stats.maxOutputTokens === 1234;
        });
        assert.strictEqual(starts, 0, 'no restart');
        assert.strictEqual(api.client.state, 'running');
      } finally {
        await config.update('maxOutputTokens', undefined, vscode.ConfigurationTarget.Workspace);
        sub.dispose();
      }
    },
  ],
  [
    'a missing server command is explained with the fix, then a settings change restarts the server',
    async () => {
      const config = vscode.workspace.getConfiguration('cairn');
      const original = config.inspect<string[]>('server.command')?.workspaceValue;
      await config.update('server.command', ['cairn-test-missing-binary', 'serve'], vscode.ConfigurationTarget.Workspace);
      const error = await waitFor('the start failure', () => (api.client.state === 'failed' ? api.client.lastError : undefined));
      assert.match(error, /could not start `cairn-test-missing-binary serve`/);
      assert.match(error, /pip install/);
      assert.match(error, /cairn\.server\.pythonPath/);
      assert.match(api.meter.text, /error/);
      await config.update('server.command', original, vscode.ConfigurationTarget.Workspace);
      await waitFor('the server to run again', () => api.client.state === 'running');
      const view = await api.client.request('cairn/goalTree', {});
      if (api.client.sessionId !== undefined) {
        // The session opened before the restart is still served (read back from the trace).
        assert.strictEqual(view.sessionId, api.client.sessionId);
      }
    },
  ],
  [
    'a Python without the cairn module is explained with the fix',
    async () => {
      const python = process.env.CAIRN_TEST_BARE_PYTHON;
      assert.ok(python, 'CAIRN_TEST_BARE_PYTHON names a Python without cairn');
      const config = vscode.workspace.getConfiguration('cairn');
      await config.update('server.pythonPath', python, vscode.ConfigurationTarget.Workspace);
      const error = await waitFor(
        () => `the start failure (state ${api.client.state}, last error ${api.client.lastError ?? 'none'})`,
        () => (api.client.state === 'failed' ? api.client.lastError : undefined),
      );
      assert.ok(error.includes(`has no module \`cairn\``), error);
      assert.ok(error.includes(`${python} -m pip install cairn-lsp`), error);
      await config.update('server.pythonPath', undefined, vscode.ConfigurationTarget.Workspace);
      await waitFor('the server to run again', () => api.client.state === 'running');
    },
  ],
  [
    'a crash loop stops restarting and says so',
    async () => {
      const config = vscode.workspace.getConfiguration('cairn');
      const original = config.inspect<string[]>('server.command')?.workspaceValue;
      const python = process.env.CAIRN_TEST_BARE_PYTHON;
      assert.ok(python, 'CAIRN_TEST_BARE_PYTHON names a Python');
      // A server that initializes and exits right away, on every start.
      const crashing = [python, path.join(FIXTURES, 'crashing_server.py')];
      await config.update('server.command', crashing, vscode.ConfigurationTarget.Workspace);
      const error = await waitFor(
        () => `the crash-loop message (state ${api.client.state}, last error ${api.client.lastError ?? 'none'})`,
        () => (api.client.state === 'failed' ? api.client.lastError : undefined),
        CRASH_LOOP_TIMEOUT_MS,
      );
      assert.match(error, /crashed 5 times in 3 minutes and will not be restarted/);
      assert.match(error, /Cairn: Restart Server/);
      assert.match(error, /crashing on purpose/);
      assert.match(api.meter.text, /error/);
      await config.update('server.command', original, vscode.ConfigurationTarget.Workspace);
      await waitFor('the server to run again', () => api.client.state === 'running');
    },
  ],
];

/** The suites by launch (CAIRN_TEST_SUITE, test/e2e/runInHost.mjs): Workspace Trust off, and on. */
const SUITES: Record<string, TestCase[]> = { main: tests, trust: trustTests };

export async function run(): Promise<void> {
  const suite = process.env.CAIRN_TEST_SUITE || 'main';
  const selected = SUITES[suite];
  assert.ok(selected, `CAIRN_TEST_SUITE=${suite}: no such suite (${Object.keys(SUITES).join(', ')})`);
  const results = await runTests(selected, process.env.CAIRN_TEST_RESULTS, process.env.CAIRN_TEST_ONLY);
  collection.dispose();
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) {
    throw new Error(`${failed.length} extension test(s) failed: ${failed.map((r) => r.name).join('; ')}`);
  }
}
