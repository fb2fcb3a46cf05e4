// Shared helpers for the VS Code tests: a throwaway code-server (VS Code in a
// browser) with its own profile, a copy of the test workspace, and headless
// Debian Chromium driven by playwright-core. Paths come from the environment
// (set by .ci/vscode) with defaults relative to this repository.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const EXTENSION_DIR = resolve(here, '..', '..');
export const REPO = process.env.CAIRN_REPO ?? resolve(EXTENSION_DIR, '..');
export const TOOLS = process.env.CAIRN_TOOLS ?? join(REPO, '.tools', 'vscode');
export const NODE24 = process.env.CAIRN_NODE24 ?? join(TOOLS, 'node24', 'node_modules', 'node', 'bin', 'node');
export const CODE_SERVER = join(TOOLS, 'cs', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export const PLAYWRIGHT = join(TOOLS, 'pw', 'node_modules', 'playwright-core', 'index.mjs');
export const CHROMIUM = process.env.CAIRN_CHROMIUM ?? '/usr/lib/chromium/chromium';
export const CAIRN_SERVER = process.env.CAIRN_SERVER ?? join(REPO, '.venv', 'bin', 'cairn');
export const RESULTS_DIR = join(EXTENSION_DIR, 'test-results');

const HEALTH_POLL_MS = 100;
const START_TIMEOUT_MS = 60_000;
const KILL_GRACE_MS = 1500;

const t0 = Date.now();
export const step = (message) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${message}`);

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });
}

/**
 * A fresh run folder: profile, extensions dir and a copy of test/workspace pointing at the repo's
 * server. `script`: the scripted model's lines instead of the workspace's; `toml`: its cairn.toml
 * instead; `server: false`: no cairn.server.command (the extension must find or install one);
 * `trust: true`: Workspace Trust on (the folder opens in Restricted Mode, and the server command
 * is the user's setting: VS Code ignores the workspace's there); `workspaceSettings`: more of the
 * workspace's .vscode/settings.json.
 */
export function prepareRun(name, { script, toml, server = true, trust = false, workspaceSettings = {} } = {}) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const run = mkdtempSync(join(tmpdir(), `cairn-vscode-${name}-`));
  for (const dir of ['user-data/User', 'extensions', 'ws/.vscode']) mkdirSync(join(run, dir), { recursive: true });
  cpSync(join(EXTENSION_DIR, 'test', 'workspace'), join(run, 'ws'), { recursive: true });
  if (script) writeFileSync(join(run, 'ws', 'script.jsonl'), script.map((line) => JSON.stringify(line) + '\n').join(''));
  if (toml !== undefined) writeFileSync(join(run, 'ws', 'cairn.toml'), toml);
  const launch = server ? { 'cairn.server.command': [CAIRN_SERVER, 'serve'] } : {};
  const settings = { 'cairn.trace.server': 'messages', ...(trust ? {} : launch), ...workspaceSettings };
  writeFileSync(join(run, 'ws', '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  writeFileSync(join(run, 'user-data', 'User', 'settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none', 'security.workspace.trust.enabled': trust,
    // No modal question at startup: the test grants trust where a user would, in the trust editor.
    ...(trust ? { 'security.workspace.trust.startupPrompt': 'never', ...launch } : {}),
    'telemetry.telemetryLevel': 'off', 'extensions.autoCheckUpdates': false, 'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true, 'update.mode': 'none', 'workbench.enableExperiments': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden', 'chat.disableAIFeatures': true,
    'workbench.tips.enabled': false,
    // code-server saves dirty documents after a delay by default; the tests that keep the user's
    // unsaved text (and check nothing was saved) need them to stay unsaved.
    'files.autoSave': 'off',
  }));
  return { dir: run, workspace: join(run, 'ws'), trust, cleanup: () => rmSync(run, { recursive: true, force: true }) };
}

function codeServerArgs(run, port) {
  return ['--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--user-data-dir', join(run.dir, 'user-data'),
    '--extensions-dir', join(run.dir, 'extensions'), '--disable-telemetry', '--disable-update-check',
    ...(run.trust ? [] : ['--disable-workspace-trust']), '--disable-getting-started-override'];
}

function codeServerEnv(run, extra) {
  return { ...process.env, XDG_CONFIG_HOME: join(run.dir, 'xdg-config'), XDG_DATA_HOME: join(run.dir, 'xdg-data'), ...extra };
}

/** `code-server --install-extension <vsix>` into the run's extensions dir. */
export function installExtension(run, vsix) {
  return new Promise((ok, fail) => {
    const child = spawn(NODE24, [CODE_SERVER, ...codeServerArgs(run, 0), '--install-extension', vsix],
      { env: codeServerEnv(run, {}), stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('exit', (code) => (code === 0 ? ok(log) : fail(new Error(`--install-extension failed (${code}):\n${log}`))));
  });
}

/** Starts code-server in its own process group; resolves once /healthz answers. */
export async function startCodeServer(run, { extraArgs = [], env = {} } = {}) {
  const port = await freePort();
  const child = spawn(NODE24, [CODE_SERVER, ...codeServerArgs(run, port), ...extraArgs],
    { env: codeServerEnv(run, env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const authority = `127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      if ((await fetch(`http://${authority}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      await stopProcessGroup(child);
      throw new Error(`code-server did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
  }
  return { authority, child, log: () => log, stop: () => stopProcessGroup(child) };
}

/** SIGTERM to the whole group (code-server, extension host, cairn serve), SIGKILL after a grace period. */
export async function stopProcessGroup(child) {
  try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
  await new Promise((r) => setTimeout(r, KILL_GRACE_MS));
  try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
}

export async function launchBrowser() {
  const { chromium } = await import(PLAYWRIGHT);
  return chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run',
      '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

const LOG_TAIL_LINES = 80;

/** Prints the tail of the extension's "Cairn" log channel (kept by VS Code under the run's logs). */
export function printClientLogs(run) {
  const files = readdirSync(run.dir, { recursive: true }).filter((f) => String(f).endsWith('Cairn.log'));
  for (const file of files) {
    const lines = readFileSync(join(run.dir, String(file)), 'utf8').trimEnd().split('\n');
    console.log(`---- ${file} (last ${LOG_TAIL_LINES} lines)`);
    console.log(lines.slice(-LOG_TAIL_LINES).join('\n'));
  }
}

/** The webview frame of the chat (the one that has our prompt box, once its script is wired). */
export async function chatFrame(page, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (!frame.url().includes('fake.html')) continue;
      if ((await frame.locator('body[data-ready="true"] #prompt').count().catch(() => 0)) > 0) return frame;
    }
    await page.waitForTimeout(200);
  }
  throw new Error('the chat webview did not load');
}

/** Runs a command from the command palette by its title. */
// How long one look for a view container's first pane waits before checking again.
const CONTAINER_RETRY_MS = 3_000;

/**
 * Opens the activity bar's `label` container until `paneTitle`'s header shows. After a
 * reload VS Code reopens the container that was open by itself, and a click on an open
 * container closes it: click only while it is not the active one.
 */
export async function openViewContainer(page, label, paneTitle, timeoutMs = 60_000) {
  const icon = page.locator(`.activitybar a.action-label[aria-label^="${label}"]`);
  const header = page.locator('.pane-header', { hasText: paneTitle }).first();
  const deadline = Date.now() + timeoutMs;
  while (!(await header.isVisible())) {
    if (Date.now() > deadline) throw new Error(`the ${label} view container never showed ${paneTitle}`);
    const active = await icon.evaluate((a) => a.closest('.action-item')?.classList.contains('checked') ?? false);
    if (!active) await icon.click();
    await header.waitFor({ timeout: CONTAINER_RETRY_MS }).catch(() => undefined);
  }
}

export async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor();
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
  await input.press('Enter');
}

/** Saves a screenshot as test-results/<suite>-<nn>-<name>.png, numbered in order. */
export function screenshotter(page, suite) {
  let count = 0;
  return async (name) => {
    const file = join(RESULTS_DIR, `${suite}-${String(++count).padStart(2, '0')}-${name}.png`);
    await page().screenshot({ path: file }).catch((error) => step(`screenshot ${name} failed: ${error}`));
    step(`screenshot: ${file}`);
  };
}

/** Runs named steps in order, each after the previous passed; the results for `report`. */
export async function runSteps(steps) {
  const results = [];
  for (const [name, body] of steps) {
    if (results.some((r) => !r.ok)) {
      results.push({ name, ok: false, error: 'not run: an earlier step failed' });
      continue;
    }
    const started = Date.now();
    try {
      await body();
      results.push({ name, ok: true });
      step(`ok: ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (error) {
      results.push({ name, ok: false, error: error.stack ?? String(error) });
    }
  }
  return results;
}

/** Prints per-test lines and the `SUMMARY <passed> <failed>` line .ci/vscode adds up. */
export function report(suite, results) {
  for (const r of results) {
    console.log(`${r.ok ? 'PASS' : 'FAIL'} ${suite}: ${r.name}${r.ok ? '' : `\n    ${String(r.error).split('\n').join('\n    ')}`}`);
  }
  const passed = results.filter((r) => r.ok).length;
  console.log(`SUMMARY ${passed} ${results.length - passed}`);
  return results.length > 0 && passed === results.length;
}
