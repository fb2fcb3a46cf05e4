// Runs test/suite (compiled to out/test/suite) INSIDE code-server's real
// extension host: payload extensionDevelopmentPath + extensionTestsPath, the
// exit code through window.codeAutomationExit (enable-smoke-test-driver).
// Two launches, each its own code-server, profile and copy of test/workspace:
//   - `main` (CAIRN_TEST_SUITE=main): Workspace Trust off, test/workspace as it is;
//   - `trust` (CAIRN_TEST_SUITE=trust): Workspace Trust on, so the folder opens in
//     Restricted Mode; its cairn.toml and .vscode/settings.json each name an MCP
//     server (the SDK fixture, tests/fakes/mcp_server.py, run by the repository's
//     venv Python), which write a line to a file outside the folder when they start.
// A test asks for a screenshot of the window by logging `IN-HOST SCREENSHOT
// <name>`; it is saved as test-results/in-host-<name>.png and a marker file
// tells the test it is done (test/suite/harness.ts `screenshot`). It asks for a
// click, as a user's, by logging `IN-HOST CLICK <name> <{"role","label"}>`: the
// element with that ARIA role and accessible name is clicked, then a marker
// says it was (`<name>.done`) or why not (`<name>.failed`, harness.ts `click`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  CAIRN_SERVER, EXTENSION_DIR, REPO, RESULTS_DIR, launchBrowser, prepareRun, printClientLogs, report, startCodeServer, step,
} from './codeServer.mjs';

const SUITE_TIMEOUT_MS = 420_000;
const TRUST_SUITE_TIMEOUT_MS = 180_000;
const CLICK_TIMEOUT_MS = 15_000;
const BARE_PYTHON = process.env.CAIRN_TEST_BARE_PYTHON ?? '/usr/bin/python3';
// The Python of the venv `cairn` comes from: it has the MCP SDK the fixture server runs on.
const VENV_PYTHON = process.env.CAIRN_TEST_MCP_PYTHON ?? join(dirname(CAIRN_SERVER), 'python');
const MCP_FIXTURE = join(REPO, 'tests', 'fakes', 'mcp_server.py');

/** An `[mcp.servers.NAME]`-shaped server: the SDK fixture, appending a line to `starts` per start. */
function fixtureServer(starts) {
  return { command: VENV_PYTHON, args: ['-P', MCP_FIXTURE, '--starts', starts] };
}

/** The trust launch's folder: both of its MCP servers are the workspace's, not the user's. */
function prepareTrustRun() {
  const run = prepareRun('intrust', { trust: true });
  // Outside the folder: the servers' start records are not the workspace's files.
  const starts = { toml: join(run.dir, 'toml-starts'), settings: join(run.dir, 'settings-starts') };
  const toml = fixtureServer(starts.toml);
  writeFileSync(join(run.workspace, 'cairn.toml'), [
    "# The trust tests' workspace: a scripted model and an MCP server only a trusted folder may start.",
    'model = "scripted/script.jsonl"',
    '',
    '[mcp.servers.fixture]',
    `command = ${JSON.stringify(toml.command)}`,
    `args = [${toml.args.map((a) => JSON.stringify(a)).join(', ')}]`,
    '',
  ].join('\n'));
  const settingsFile = join(run.workspace, '.vscode', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  settings['cairn.mcp'] = { servers: { fromSettings: fixtureServer(starts.settings) } };
  writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  return { run, starts };
}

async function runLaunch(suite, run, env, timeoutMs) {
  const resultsFile = join(run.dir, 'results.json');
  const shots = join(run.dir, 'shots');
  mkdirSync(shots, { recursive: true });
  let results = [];
  let server;
  let browser;
  try {
    server = await startCodeServer(run, {
      extraArgs: ['--vscode-option', 'enable-smoke-test-driver'],
      env: {
        CAIRN_TEST_RESULTS: resultsFile, CAIRN_TEST_BARE_PYTHON: BARE_PYTHON, CAIRN_TEST_SHOTS: shots,
        CAIRN_TEST_ONLY: process.env.CAIRN_TEST_ONLY ?? '', CAIRN_TEST_SUITE: suite, ...env,
      },
    });
    step(`${suite}: code-server on ${server.authority}`);
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let exited;
    const exitCode = new Promise((r) => (exited = r));
    await page.exposeFunction('codeAutomationExit', (code) => exited(code));
    await page.exposeFunction('codeAutomationLog', async (type, args) => {
      const text = args.join(' ');
      const shot = /IN-HOST SCREENSHOT (\S+)/.exec(text);
      if (shot) {
        await page.screenshot({ path: join(RESULTS_DIR, `in-host-${shot[1]}.png`) }).catch((e) => step(`screenshot failed: ${e}`));
        writeFileSync(join(shots, `${shot[1]}.done`), '');
        return;
      }
      const click = /IN-HOST CLICK (\S+) (\{.*\})/.exec(text);
      if (click) {
        const { role, label } = JSON.parse(click[2]);
        try {
          await page.getByRole(role, { name: label, exact: true }).first().click({ timeout: CLICK_TIMEOUT_MS });
          step(`${suite}: clicked the ${role} "${label}"`);
          writeFileSync(join(shots, `${click[1]}.done`), '');
        } catch (error) {
          writeFileSync(join(shots, `${click[1]}.failed`), String(error));
        }
        return;
      }
      if (/IN-HOST/.test(text)) console.log(text.slice(0, 2000));
    });
    const remote = (path) => `vscode-remote://${server.authority}${path}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(EXTENSION_DIR)],
      ['extensionTestsPath', remote(join(EXTENSION_DIR, 'out', 'test', 'suite', 'index.js'))],
    ]);
    await page.goto(`http://${server.authority}/?folder=${run.workspace}&payload=${encodeURIComponent(payload)}`);
    step(`${suite}: workbench loading; waiting for the extension tests`);
    const code = await Promise.race([exitCode, new Promise((r) => setTimeout(() => r('timeout'), timeoutMs))]);
    step(`${suite}: extension tests exit code: ${code}`);
    if (existsSync(resultsFile)) {
      results = JSON.parse(readFileSync(resultsFile, 'utf8'));
    } else {
      results = [{ name: 'the in-host suite ran', ok: false, error: `no results (exit ${code})\n${server.log().slice(-4000)}` }];
    }
  } catch (error) {
    results.push({ name: 'the in-host suite ran', ok: false, error: error.stack ?? String(error) });
  } finally {
    if (browser) await browser.close();
    if (server) await server.stop();
    if (results.some((r) => !r.ok)) printClientLogs(run);
    run.cleanup();
  }
  return results;
}

// CAIRN_TEST_SUITES (`main`, `trust`, or both comma-separated: the default) picks the launches.
const suites = (process.env.CAIRN_TEST_SUITES || 'main,trust').split(',');
const results = suites.includes('main') ? await runLaunch('main', prepareRun('intest'), {}, SUITE_TIMEOUT_MS) : [];
if (suites.includes('trust')) {
  const trust = prepareTrustRun();
  const env = { CAIRN_TEST_MCP_STARTS: trust.starts.toml, CAIRN_TEST_MCP_SETTINGS_STARTS: trust.starts.settings };
  for (const r of await runLaunch('trust', trust.run, env, TRUST_SUITE_TIMEOUT_MS)) {
    results.push({ ...r, name: `[trust] ${r.name}` });
  }
}
process.exit(report('in-host', results) ? 0 : 1);
