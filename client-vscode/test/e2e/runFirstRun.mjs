// First-run UI test: a fresh VS Code with the packaged .vsix and no Cairn
// server anywhere (no cairn.server.* settings, no `cairn` on PATH). The user
// opens the Cairn view, clicks "Install the Cairn Server" in its welcome
// content (the extension makes a virtual environment with the machine's
// Python and installs the wheel shipped in the .vsix — offline: pip may only
// use a local folder of dependency wheels), follows the walkthrough, chooses
// a model in the quick pick (the API key typed once, kept in the secret
// storage) and asks Cairn about the current file. The model is a local
// OpenAI-compatible server (test/fixtures/fake_openai.py) that records the key
// it receives. A screenshot of each step goes to test-results/first-run-<nn>-<step>.png.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import {
  EXTENSION_DIR, NODE24, REPO, chatFrame, installExtension, launchBrowser, openViewContainer, prepareRun, printClientLogs, report,
  runCommand, runSteps, screenshotter, startCodeServer, step, stopProcessGroup,
} from './codeServer.mjs';

const VSIX = process.env.CAIRN_VSIX ?? join(EXTENSION_DIR, 'cairn.vsix');
const WHEELHOUSE = process.env.CAIRN_WHEELHOUSE ?? join(REPO, '.tools', 'vscode', 'wheelhouse');
const REPO_PYTHON = join(REPO, '.venv', 'bin', 'python');
const UI_TIMEOUT_MS = 60_000;
const INSTALL_TIMEOUT_MS = 420_000;
const MODEL = 'openai/gpt-4o-mini';
const API_KEY = 'sk-cairn-first-run-test';
/** Only the system's programs: no `cairn` (nor the repo's venv) on PATH. */
const SYSTEM_PATH = [dirname(NODE24), '/usr/bin', '/bin'].join(':');

const workspaceRun = prepareRun('firstrun', { server: false, toml: 'model = ""\n' });
const requestsLog = join(workspaceRun.dir, 'provider-requests.jsonl');
let provider;
let server;
let browser;
let page;
const shot = screenshotter(() => page, 'first-run');

/** Starts the fake provider; resolves to its base URL. */
function startProvider() {
  provider = spawn(REPO_PYTHON, [join(EXTENSION_DIR, 'test', 'fixtures', 'fake_openai.py'), requestsLog], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: provider.stdout }).once('line', (line) => resolve(line.trim()));
    provider.once('exit', (code) => reject(new Error(`the fake provider exited (${code})`)));
  });
}

const goalsPane = () => page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Goals' }) });

const steps = [
  ['a fresh VS Code with the .vsix and no Cairn server installed', async () => {
    if (!existsSync(WHEELHOUSE)) throw new Error(`no dependency wheels at ${WHEELHOUSE} (.ci/vscode makes them)`);
    const baseUrl = await startProvider();
    step(`fake provider on ${baseUrl}`);
    await installExtension(workspaceRun, VSIX);
    server = await startCodeServer(workspaceRun, {
      env: {
        PATH: SYSTEM_PATH,
        PIP_NO_INDEX: '1',
        PIP_FIND_LINKS: WHEELHOUSE,
        PIP_DISABLE_PIP_VERSION_CHECK: '1',
        OPENAI_BASE_URL: baseUrl,
        OPENAI_API_BASE: baseUrl,
      },
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(`http://${server.authority}/?folder=${workspaceRun.workspace}`);
    await page.locator('.monaco-workbench .activitybar').waitFor();
  }],
  ['the Cairn view says the server is missing and offers to install it', async () => {
    await openViewContainer(page, 'Cairn', 'Goals');
    await goalsPane().locator('.welcome-view-content', { hasText: 'Cairn needs its language server' }).waitFor();
    const frame = await chatFrame(page);
    await frame.locator('#banner button', { hasText: 'Install the Cairn server' }).waitFor();
    await shot('server-missing');
  }],
  ['the walkthrough leads to a working server: its Install button installs from the bundled wheel, offline', async () => {
    await runCommand(page, 'Welcome: Open Walkthrough...');
    const input = page.locator('.quick-input-widget input.input');
    await input.fill('Get started with Cairn');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with Cairn' }).first().click();
    const serverStep = page.locator('.getting-started-step', { hasText: 'Install the Cairn server' }).first();
    await serverStep.waitFor();
    await shot('walkthrough');
    await page.locator('.getting-started-step .monaco-button', { hasText: 'Install the Cairn Server' }).first().click();
    await page.locator('.notification-toast', { hasText: 'installing the server' }).first().waitFor();
    await shot('installing');
    await goalsPane()
      .locator('.welcome-view-content', { hasText: 'Cairn has no model yet' })
      .waitFor({ timeout: INSTALL_TIMEOUT_MS });
    await serverStep.locator('.codicon-getting-started-step-checked').waitFor();
    await shot('server-running');
  }],
  ['Choose a Model: provider, model and key in the quick pick; the server restarts with the key', async () => {
    await runCommand(page, 'Cairn: Choose Model');
    const input = page.locator('.quick-input-widget input.input');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'openai' }).first().waitFor();
    await input.fill('openai');
    await shot('choose-provider');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: /^openai/ }).first().click();
    await page.locator('.quick-input-widget', { hasText: '(2/2)' }).waitFor();
    await input.fill(MODEL);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: MODEL }).first().waitFor();
    await input.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'OPENAI_API_KEY' }).waitFor();
    await input.fill(API_KEY);
    await shot('api-key');
    await input.press('Enter');
    await page.locator('.notification-toast', { hasText: `using ${MODEL}` }).first().waitFor();
    await goalsPane().locator('.welcome-view-content', { hasText: 'No goals yet' }).waitFor();
    const settings = JSON.parse(readFileSync(join(workspaceRun.dir, 'user-data', 'User', 'settings.json'), 'utf8'));
    if (settings['cairn.model'] !== MODEL) throw new Error(`cairn.model: ${settings['cairn.model']}`);
    if (JSON.stringify(settings).includes(API_KEY)) throw new Error('the API key was written to the settings');
    await shot('model-chosen');
  }],
  ['Try It on the Current File: the answer comes from the provider, called with the key', async () => {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input.input');
    await input.fill('sample.py');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'sample.py' }).first().waitFor();
    await input.press('Enter');
    await page.locator('.tab', { hasText: 'sample.py' }).waitFor();
    await runCommand(page, 'Cairn: Try It on the Current File');
    const frame = await chatFrame(page);
    await frame.locator('.user-text', { hasText: 'Explain what @sample.py does' }).waitFor();
    await frame.locator('.md.answer strong', { hasText: 'sample.py' }).waitFor();
    await frame.locator('.result.stop').waitFor();
    const requests = readFileSync(requestsLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    if (!requests.some((r) => r.key === API_KEY && r.model.endsWith('gpt-4o-mini'))) {
      throw new Error(`the provider was not called with the key: ${JSON.stringify(requests)}`);
    }
    await shot('first-answer');
  }],
];

let results = [];
try {
  results = await runSteps(steps);
} finally {
  if (page && results.some((r) => !r.ok)) await shot('failure');
  if (browser) await browser.close();
  if (server) await server.stop();
  if (provider) await stopProcessGroup(provider);
  if (results.some((r) => !r.ok)) printClientLogs(workspaceRun);
  workspaceRun.cleanup();
}
process.exit(report('first-run', results) ? 0 : 1);
