// Runs test/suite (compiled to out/test/suite) INSIDE code-server's real
// extension host: payload extensionDevelopmentPath + extensionTestsPath, the
// exit code through window.codeAutomationExit (enable-smoke-test-driver).
// A test asks for a screenshot of the window by logging `IN-HOST SCREENSHOT
// <name>`; it is saved as test-results/in-host-<name>.png and a marker file
// tells the test it is done (test/suite/harness.ts `screenshot`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  EXTENSION_DIR, RESULTS_DIR, launchBrowser, prepareRun, printClientLogs, report, startCodeServer, step,
} from './codeServer.mjs';

const SUITE_TIMEOUT_MS = 420_000;
const BARE_PYTHON = process.env.CAIRN_TEST_BARE_PYTHON ?? '/usr/bin/python3';

const run = prepareRun('intest');
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
      CAIRN_TEST_ONLY: process.env.CAIRN_TEST_ONLY ?? '',
    },
  });
  step(`code-server on ${server.authority}`);
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
    if (/IN-HOST/.test(text)) console.log(text.slice(0, 2000));
  });
  const remote = (path) => `vscode-remote://${server.authority}${path}`;
  const payload = JSON.stringify([
    ['extensionDevelopmentPath', remote(EXTENSION_DIR)],
    ['extensionTestsPath', remote(join(EXTENSION_DIR, 'out', 'test', 'suite', 'index.js'))],
  ]);
  await page.goto(`http://${server.authority}/?folder=${run.workspace}&payload=${encodeURIComponent(payload)}`);
  step('workbench loading; waiting for the extension tests');
  const code = await Promise.race([exitCode, new Promise((r) => setTimeout(() => r('timeout'), SUITE_TIMEOUT_MS))]);
  step(`extension tests exit code: ${code}`);
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
process.exit(report('in-host', results) ? 0 : 1);
