// UI test: installs the packaged .vsix into code-server, opens the Cairn
// container like a user, sends a prompt from the chat panel (with @file
// completion) and checks the chat, the goal tree and the context meter, then
// saves a screenshot under test-results/.
import { join } from 'node:path';
import {
  EXTENSION_DIR, RESULTS_DIR, installExtension, launchBrowser, prepareRun, printClientLogs, report, startCodeServer,
  step,
} from './codeServer.mjs';

const VSIX = process.env.CAIRN_VSIX ?? join(EXTENSION_DIR, 'cairn.vsix');
const SCREENSHOT = join(RESULTS_DIR, 'cairn-ui.png');
const UI_TIMEOUT_MS = 60_000;
const POLL_MS = 200;
const SCRIPTED_ANSWER = 'Hello from the script: all done.';

/** The chat webview's inner frame (the one that has our prompt box). */
async function chatFrame(page) {
  const deadline = Date.now() + UI_TIMEOUT_MS;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (!frame.url().includes('fake.html')) continue;
      // body[data-ready] is set once the webview script (src/webview/chat.ts) has wired its listeners.
      if ((await frame.locator('body[data-ready="true"] #prompt').count().catch(() => 0)) > 0) return frame;
    }
    await page.waitForTimeout(POLL_MS);
  }
  throw new Error('the chat webview did not load');
}

const run = prepareRun('ui');
const results = [];
let server;
let browser;
let page;
let frame;
const steps = [
  ['the .vsix installs into code-server', async () => {
    await installExtension(run, VSIX);
    server = await startCodeServer(run);
    step(`code-server on ${server.authority}`);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(`http://${server.authority}/?folder=${run.workspace}`);
    await page.locator('.monaco-workbench .activitybar').waitFor();
  }],
  ['the activity bar opens the Cairn container with Goals, Chat and Sessions', async () => {
    await page.locator('.activitybar a.action-label[aria-label^="Cairn"]').click();
    for (const title of ['Goals', 'Chat', 'Sessions']) {
      await page.locator('.pane-header', { hasText: title }).first().waitFor();
    }
    frame = await chatFrame(page);
  }],
  ['@file completion offers workspace files in the chat prompt', async () => {
    await frame.locator('#prompt').click();
    await frame.locator('#prompt').pressSequentially('Say hello about @sam');
    await frame.locator('#completions li', { hasText: 'sample.py' }).waitFor();
    await frame.locator('#prompt').press('Tab');
    const value = await frame.locator('#prompt').inputValue();
    if (value !== 'Say hello about @sample.py ') throw new Error(`prompt after completion: ${JSON.stringify(value)}`);
  }],
  ['Send runs a scripted turn; the chat shows text, the goal tool row and the result', async () => {
    await frame.locator('#prompt').press('Enter');
    await frame.locator('.turn .text', { hasText: SCRIPTED_ANSWER }).waitFor();
    await frame.locator('details.tool.ok .tool-name', { hasText: 'goal' }).waitFor();
    await frame.locator('.result.stop').waitFor();
    const user = await frame.locator('.user .user-text').last().innerText();
    if (!user.includes('@sample.py')) throw new Error(`user row: ${user}`);
  }],
  ['the goal tree shows the goal the scripted turn added', async () => {
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Goals' }) });
    await pane.locator('.monaco-list-row', { hasText: 'Read the code' }).waitFor();
    const rows = await pane.locator('.monaco-list-row').allInnerTexts();
    step('goal rows: ' + JSON.stringify(rows));
  }],
  ['the status bar meter shows used / window tokens', async () => {
    const meter = page.locator('.statusbar-item', { hasText: /Cairn \d/ });
    await meter.first().waitFor();
    const text = (await meter.first().innerText()).trim();
    step('status bar: ' + text);
    if (!/^Cairn \d+k? \/ \d+k?$/.test(text)) throw new Error(`status bar text: ${JSON.stringify(text)}`);
  }],
];

try {
  for (const [name, body] of steps) {
    if (results.some((r) => !r.ok)) {
      results.push({ name, ok: false, error: 'not run: an earlier step failed' });
      continue;
    }
    try {
      await body();
      results.push({ name, ok: true });
      step(`ok: ${name}`);
    } catch (error) {
      results.push({ name, ok: false, error: error.stack ?? String(error) });
    }
  }
} finally {
  if (page) {
    await page.screenshot({ path: SCREENSHOT }).catch(() => undefined);
    step(`screenshot: ${SCREENSHOT}`);
  }
  if (browser) await browser.close();
  if (server) await server.stop();
  if (results.some((r) => !r.ok)) printClientLogs(run);
  run.cleanup();
}
process.exit(report('ui', results) ? 0 : 1);
