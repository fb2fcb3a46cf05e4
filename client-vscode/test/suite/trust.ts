/**
 * The trust launch's extension tests (CAIRN_TEST_SUITE=trust, test/e2e/runInHost.mjs):
 * VS Code with Workspace Trust on, a folder never trusted, whose cairn.toml names
 * the MCP server `fixture` and whose .vscode/settings.json names `fromSettings`
 * (both the SDK fixture, tests/fakes/mcp_server.py, appending a line to a file
 * outside the folder each time it starts: CAIRN_TEST_MCP_STARTS and
 * CAIRN_TEST_MCP_SETTINGS_STARTS). In order: Restricted Mode is shown and no
 * server starts; trust granted in the Workspace Trust editor, by a click, restarts
 * the server trusted and the MCP Servers view lists both servers' tools; a
 * SIGKILL of one server's process shows in the view as a crash and a restart.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { CairnApi } from '../../src/extension';
import { McpNode } from '../../src/mcpServers';
import type { McpReport, McpServerView } from '../../src/protocol';
import { RESTRICTED_MODE } from '../../src/restrictedMode';
import { TestCase, click, screenshot, waitFor } from './harness';

const EXTENSION_ID = 'cairn-dev.cairn';
const FROM_TOML = 'fixture';
const FROM_SETTINGS = 'fromSettings';
/** Some of the fixture's tools (tests/fakes/mcp_server.py). */
const FIXTURE_TOOLS = ['crash', 'echo', 'write_note'];
const KILLED = 'was killed by signal 9 (SIGKILL)';
// Starting two Python MCP servers (the SDK's import) on a loaded 2-core machine.
const MCP_START_TIMEOUT_MS = 90_000;
const TRUST_TIMEOUT_MS = 60_000;

let api: CairnApi;

function startsFile(variable: string): string {
  const file = process.env[variable];
  assert.ok(file, `${variable} names the file the fixture server appends to when it starts`);
  return file;
}

/** How many times the server whose start records are in `variable`'s file started. */
function starts(variable: string): number {
  const file = startsFile(variable);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
}

function server(report: McpReport | undefined, name: string): McpServerView | undefined {
  return report?.servers.find((s) => s.name === name);
}

/** The rows the MCP Servers view shows: each server's label and description, then its children's labels. */
function treeRows(): string[] {
  const label = (node: McpNode): string => {
    const item = api.mcp.getTreeItem(node);
    const text = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    return item.description ? `${text} — ${String(item.description)}` : text;
  };
  return api.mcp.getChildren().flatMap((node) => [label(node), ...api.mcp.getChildren(node).map((child) => `  ${label(child)}`)]);
}

export const trustTests: TestCase[] = [
  [
    "an untrusted folder opens in Restricted Mode: Cairn says so, and neither the folder's cairn.toml nor its settings start an MCP server",
    async () => {
      assert.strictEqual(vscode.workspace.isTrusted, false, 'the folder opened untrusted (Workspace Trust is on)');
      const extension = vscode.extensions.getExtension<CairnApi>(EXTENSION_ID);
      assert.ok(extension, `${EXTENSION_ID} is loaded`);
      api = await extension.activate();
      assert.strictEqual(await api.ready, true, `the server started: ${api.client.lastError ?? ''}`);
      await vscode.commands.executeCommand('cairn.mcpServers.focus');
      // Opening the view asks the server to start its servers (`start: true`): none is the user's.
      const report = await waitFor('the MCP report of the opened view', () => api.mcp.report);
      assert.deepStrictEqual(report.servers.map((s) => s.name), [], JSON.stringify(report.servers));
      assert.strictEqual(api.mcp.message, RESTRICTED_MODE, 'the MCP Servers view says why');
      assert.ok(api.meter.text.startsWith('$(workspace-untrusted) Cairn'), api.meter.text);
      assert.ok(api.meter.tooltipText.startsWith(RESTRICTED_MODE), api.meter.tooltipText);
      const manifest = await api.client.request('cairn/contextManifest', { message: 'what time is it?' });
      const notes = (manifest.notes ?? []).join('\n');
      assert.match(notes, /cairn\.toml's .*mcp.* ignored: this folder is not trusted/, notes);
      await screenshot('restricted-mode');
      assert.strictEqual(starts('CAIRN_TEST_MCP_STARTS'), 0, "cairn.toml's server never started");
      assert.strictEqual(starts('CAIRN_TEST_MCP_SETTINGS_STARTS'), 0, "the workspace settings' server never started");
    },
  ],
  [
    "trusting the folder in the Workspace Trust editor restarts the server trusted, and the MCP Servers view lists both servers' tools",
    async () => {
      let restarts = 0;
      const started = api.client.onDidStart.event(() => restarts++);
      try {
        await vscode.commands.executeCommand('workbench.trust.manage');
        await screenshot('trust-editor');
        await click('trust', 'button', 'Trust');
        await waitFor('Workspace Trust granted', () => vscode.workspace.isTrusted, TRUST_TIMEOUT_MS);
        await waitFor('the server restarted', () => restarts > 0 && api.client.state === 'running', TRUST_TIMEOUT_MS);
        const report = await waitFor(
          () => `both MCP servers ready (now: ${JSON.stringify(api.mcp.report?.servers.map((s) => [s.name, s.state, s.reason]))})`,
          async () => {
            const now = await api.mcp.refresh(true);
            return [FROM_TOML, FROM_SETTINGS].every((name) => server(now, name)?.state === 'ready') ? now : undefined;
          },
          MCP_START_TIMEOUT_MS,
        );
        const tools = (name: string): string[] => server(report, name)?.tools.map((t) => t.tool) ?? [];
        assert.ok(FIXTURE_TOOLS.every((tool) => tools(FROM_TOML).includes(tool)), JSON.stringify(tools(FROM_TOML)));
        assert.deepStrictEqual(tools(FROM_TOML), [...tools(FROM_TOML)].sort(), 'listed in name order');
        assert.deepStrictEqual(tools(FROM_SETTINGS), tools(FROM_TOML), 'the same server twice, the same tools');
        assert.strictEqual(api.mcp.message, report.summary, 'no Restricted Mode sentence once trusted');
        assert.ok(!api.meter.text.includes('workspace-untrusted'), api.meter.text);
        const rows = treeRows();
        assert.ok(rows.some((r) => r.startsWith(`${FROM_TOML} — ready · ${tools(FROM_TOML).length} tools ·`)), rows.join('\n'));
        assert.ok(rows.some((r) => /^ {2}echo — \d+ tokens · (allowed|asks first)/.test(r)), rows.join('\n'));
        assert.strictEqual(starts('CAIRN_TEST_MCP_STARTS'), 1);
        assert.strictEqual(starts('CAIRN_TEST_MCP_SETTINGS_STARTS'), 1);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        await api.mcp.reveal(FROM_TOML);
        await screenshot('trusted-mcp-tools');
      } finally {
        started.dispose();
      }
    },
  ],
  [
    'the MCP Servers view shows a crash: a SIGKILLed server is shown restarting with its signal, then ready with its restart count',
    async () => {
      const before = server(api.mcp.report, FROM_TOML);
      assert.ok(before?.state === 'ready' && before.pid !== null, JSON.stringify(before));
      // The view as it is when each cairn/mcpStatus has been shown (the view subscribed first).
      const seen: { server: McpServerView; rows: string[] }[] = [];
      const watching = api.client.onMcpStatus.event((event) => {
        if (event.server.name === FROM_TOML) seen.push({ server: event.server, rows: treeRows() });
      });
      try {
        process.kill(before.pid, 'SIGKILL');
        const crashed = await waitFor('cairn/mcpStatus of the crash', () => seen.find((s) => s.server.state === 'restarting'));
        assert.strictEqual(crashed.server.exit, KILLED);
        assert.strictEqual(crashed.server.restarts, 1);
        const crashRows = crashed.rows.join('\n');
        assert.ok(crashed.rows.some((r) => r.startsWith(`${FROM_TOML} — restarting`)), crashRows);
        assert.ok(crashed.rows.some((r) => r.startsWith(`  ${KILLED}; restarting in`)), crashRows);
        assert.ok(crashed.rows.includes('  1 restart'), crashRows);
        assert.ok(crashed.rows.includes(`  its last process ${KILLED}`), crashRows);
        const again = await waitFor(
          () => `the server ready again (seen: ${JSON.stringify(seen.map((s) => [s.server.state, s.server.reason]))})`,
          () => {
            const now = server(api.mcp.report, FROM_TOML);
            return now?.state === 'ready' && now.restarts === 1 ? now : undefined;
          },
          MCP_START_TIMEOUT_MS,
        );
        assert.notStrictEqual(again.pid, before.pid, 'a new process');
        assert.strictEqual(starts('CAIRN_TEST_MCP_STARTS'), 2, 'started again');
        const rows = treeRows();
        assert.ok(rows.includes('  1 restart'), rows.join('\n'));
        assert.ok(rows.includes(`  its last process ${KILLED}`), rows.join('\n'));
        assert.ok(rows.some((r) => r.startsWith(`${FROM_SETTINGS} — ready`)), 'the other server is untouched');
        await api.mcp.reveal(FROM_TOML);
        await screenshot('mcp-crash-shown');
      } finally {
        watching.dispose();
      }
    },
  ],
];
