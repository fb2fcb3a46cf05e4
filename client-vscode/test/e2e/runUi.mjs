// UI test: installs the packaged .vsix into code-server and uses Cairn like a
// user, clicking in the real VS Code: the chat (Markdown and a highlighted
// code block, @file completion), the goal tree and the meter, an approval
// run and one rejected in the chat, a collapsed compaction line, review mode
// rejecting an edit (the file is unchanged), a checkpoint restoring the
// files, a reload that restores the transcript, and the manifest view that
// closes without a save prompt. A screenshot of each step goes to
// test-results/ui-<nn>-<step>.png.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  EXTENSION_DIR, chatFrame, installExtension, launchBrowser, openViewContainer, prepareRun, printClientLogs, report, runCommand,
  runSteps, screenshotter, startCodeServer, step,
} from './codeServer.mjs';

const VSIX = process.env.CAIRN_VSIX ?? join(EXTENSION_DIR, 'cairn.vsix');
const UI_TIMEOUT_MS = 60_000;
const CONFIG_SETTLE_MS = 1500;
const FENCE = '```';
const edit = (path, old, replacement) => ({ name: 'edit_file', arguments: { path, old, new: replacement } });
const run = (command) => ({ name: 'run_command', arguments: { command } });
const SCRIPT = [
  {
    text: `## Plan\n\nI read **sample.py**:\n\n- \`greet\` builds the greeting\n\n${FENCE}python\ndef greet(name: str) -> str:\n    return f"hello {name}"\n${FENCE}\n`,
    toolCalls: [{ name: 'goal', arguments: { add: 'Read the code' } }],
  },
  { text: 'Hello from the script: all done.' },
  { toolCalls: [run('echo approved-by-click')] },
  { text: 'Ran it.' },
  { toolCalls: [run('echo rejected-by-click')] },
  { text: 'Did not run it.' },
  { toolCalls: [edit('sample.py', 'return "hello " + name', 'return "hi " + name')] },
  { text: 'The edit was rejected, so I stopped.' },
  { toolCalls: [edit('version.py', 'VERSION = "0.1.0"', 'VERSION = "0.9.0"')] },
  { text: 'Bumped to 0.9.0.' },
];

const workspaceRun = prepareRun('ui', { script: SCRIPT });
const ws = workspaceRun.workspace;
const onDisk = (name) => readFileSync(join(ws, name), 'utf8');
let server;
let browser;
let page;
let frame;
const shot = screenshotter(() => page, 'ui');

async function openCairn() {
  await openViewContainer(page, 'Cairn', 'Cairn Chat', UI_TIMEOUT_MS);
  for (const title of ['Cairn Chat', 'Goals', 'Sessions']) {
    await page.locator('.pane-header', { hasText: title }).first().waitFor();
  }
  frame = await chatFrame(page);
}

/** Sends a prompt; resolves once its turn box is on the page. */
async function sendPrompt(text) {
  const before = await frame.locator('section.turn').count();
  await frame.locator('#prompt').fill(text);
  await frame.locator('#prompt').press('Enter');
  await frame.locator('section.turn').nth(before).locator('.user-text', { hasText: text }).waitFor();
}

/** Waits for a Markdown preview whose heading is `heading` and whose text matches `pattern`. */
async function previewText(page, heading, pattern) {
  const deadline = Date.now() + UI_TIMEOUT_MS;
  while (Date.now() < deadline) {
    for (const candidate of page.frames()) {
      const text = await candidate.locator('body').innerText({ timeout: 500 }).catch(() => '');
      if (text.includes(heading) && pattern.test(text)) return text;
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`no rendered preview of "${heading}" matching ${pattern}`);
}

/** The last turn box (a locator). */
const lastTurn = () => frame.locator('section.turn').last();

function setWorkspaceSetting(key, value) {
  const file = join(ws, '.vscode', 'settings.json');
  const settings = JSON.parse(readFileSync(file, 'utf8'));
  if (value === undefined) delete settings[key];
  else settings[key] = value;
  writeFileSync(file, JSON.stringify(settings, null, 2));
}

const steps = [
  ['the .vsix installs into code-server', async () => {
    await installExtension(workspaceRun, VSIX);
    server = await startCodeServer(workspaceRun);
    step(`code-server on ${server.authority}`);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(`http://${server.authority}/?folder=${ws}`);
    await page.locator('.monaco-workbench .activitybar').waitFor();
  }],
  ['the activity bar opens the Cairn container: Cairn Chat, Goals and Sessions', async () => {
    await openCairn();
    await shot('views');
  }],
  ['@file completion offers workspace files in the chat prompt', async () => {
    await frame.locator('#prompt').click();
    await frame.locator('#prompt').pressSequentially('Say hello about @sam');
    await frame.locator('#completions li', { hasText: 'sample.py' }).waitFor();
    const expanded = await frame.locator('#prompt').getAttribute('aria-expanded');
    if (expanded !== 'true') throw new Error(`the prompt does not announce the list: aria-expanded=${expanded}`);
    await frame.locator('#prompt').press('Tab');
    const value = await frame.locator('#prompt').inputValue();
    if (value !== 'Say hello about @sample.py ') throw new Error(`prompt after completion: ${JSON.stringify(value)}`);
  }],
  ['Send runs a turn: Markdown rendered, the code block highlighted with Copy and Insert, the goal tool row', async () => {
    await frame.locator('#prompt').press('Enter');
    const answer = lastTurn().locator('.md.answer').first();
    await answer.locator('h2', { hasText: 'Plan' }).waitFor();
    await answer.locator('strong', { hasText: 'sample.py' }).waitFor();
    await answer.locator('.codeblock .hljs-keyword', { hasText: 'def' }).waitFor();
    await answer.locator('.codebar button', { hasText: 'Copy' }).waitFor();
    await answer.locator('.codebar button', { hasText: 'Insert' }).waitFor();
    await lastTurn().locator('.md.answer', { hasText: 'Hello from the script: all done.' }).waitFor();
    await lastTurn().locator('details.tool.ok .tool-name', { hasText: 'goal' }).waitFor();
    await lastTurn().locator('.result.stop').waitFor();
    if ((await answer.locator('script, iframe').count()) > 0) throw new Error('markup from the model reached the page');
    await shot('markdown-answer');
  }],
  ['the goal tree shows the goal the turn added, and the meter the context', async () => {
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Goals' }) });
    await pane.locator('.monaco-list-row', { hasText: 'Read the code' }).waitFor();
    const meter = page.locator('.statusbar-item', { hasText: /Cairn \d/ });
    await meter.first().waitFor();
    const text = (await meter.first().innerText()).trim();
    if (!/^Cairn \d+k? \/ \d+k?$/.test(text)) throw new Error(`status bar text: ${JSON.stringify(text)}`);
  }],
  ['an approval waits in the chat with the exact command; Run runs it', async () => {
    await sendPrompt('Run the first command');
    const card = lastTurn().locator('.card.approval.pending');
    await card.locator('code', { hasText: 'echo approved-by-click' }).waitFor();
    await lastTurn().locator('details.tool.waiting .tool-state', { hasText: 'waiting for you' }).waitFor();
    await shot('approval-waiting');
    await card.locator('button', { hasText: /^Run$/ }).click();
    await lastTurn().locator('details.tool.ok .tool-name', { hasText: 'run_command' }).waitFor();
    await lastTurn().locator('.card.approval.once', { hasText: 'You ran it.' }).waitFor();
    await lastTurn().locator('.result.stop').waitFor();
  }],
  ['Reject in the chat refuses the command; the agent is told', async () => {
    await sendPrompt('Run the second command');
    const card = lastTurn().locator('.card.approval.pending');
    await card.locator('code', { hasText: 'echo rejected-by-click' }).waitFor();
    await card.locator('button', { hasText: 'Reject' }).click();
    await lastTurn().locator('details.tool.error .tool-state', { hasText: 'not approved by the user' }).waitFor();
    await lastTurn().locator('.md.answer', { hasText: 'Did not run it.' }).waitFor();
    await shot('approval-rejected');
  }],
  ['Compact Now shows one collapsed compaction line', async () => {
    await runCommand(page, 'Cairn: Compact Now');
    const line = frame.locator('details.compaction').last();
    await line.waitFor();
    await frame.locator('details.compaction:not(.start)').last().waitFor();
    if (await line.evaluate((node) => node.open)) throw new Error('the compaction line is expanded');
    await frame.locator('.notice', { hasText: 'Compact Now:' }).last().waitFor();
    await shot('compaction-line');
  }],
  ['review mode: the edit opens as a diff; Reject leaves the file unchanged', async () => {
    const before = onDisk('sample.py');
    setWorkspaceSetting('cairn.edits.review', true);
    await page.waitForTimeout(CONFIG_SETTLE_MS);
    await sendPrompt('Change the greeting');
    const card = lastTurn().locator('.card.review.pending');
    await card.locator('.card-title', { hasText: 'Review sample.py' }).waitFor();
    await page.locator('.tab', { hasText: "sample.py: Cairn's edit (review)" }).waitFor();
    await page.locator('.editor-actions [aria-label="Reject Edit"]').first().waitFor();
    await shot('review-diff');
    await card.locator('button', { hasText: 'Reject' }).click();
    await lastTurn().locator('.card.review.rejected').waitFor();
    await lastTurn().locator('.result').waitFor();
    if (onDisk('sample.py') !== before) throw new Error(`sample.py changed:\n${onDisk('sample.py')}`);
    setWorkspaceSetting('cairn.edits.review', undefined);
    await page.waitForTimeout(CONFIG_SETTLE_MS);
    await shot('review-rejected');
  }],
  ['a checkpoint restores the files of a turn', async () => {
    await sendPrompt('Bump the version');
    await lastTurn().locator('.result.stop').waitFor();
    if (!onDisk('version.py').includes('0.9.0')) throw new Error(`version.py was not bumped:\n${onDisk('version.py')}`);
    await lastTurn().locator('.checkpoint button', { hasText: 'Restore files' }).click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor();
    await shot('checkpoint-confirm');
    await dialog.locator('.monaco-button', { hasText: 'Restore' }).click();
    await frame.locator('.notice', { hasText: 'Restored 1 file(s)' }).waitFor();
    if (!onDisk('version.py').includes('0.1.0')) throw new Error(`version.py was not restored:\n${onDisk('version.py')}`);
    await shot('checkpoint-restored');
  }],
  ['a reload restores the transcript from the server', async () => {
    await page.reload();
    await page.locator('.monaco-workbench .activitybar').waitFor();
    await openCairn();
    await frame.locator('.user-text', { hasText: 'Say hello about @sample.py' }).waitFor();
    await frame.locator('.user-text', { hasText: 'Bump the version' }).waitFor();
    await frame.locator('.md.answer h2', { hasText: 'Plan' }).waitFor();
    await frame.locator('details.tool.ok .tool-name', { hasText: 'run_command' }).first().waitFor();
    await frame.locator('.checkpoint .reverted').first().waitFor();
    await shot('reloaded');
  }],
  ['the manifest view is rendered read-only and closes without a save prompt', async () => {
    await runCommand(page, 'Cairn: Show Context Manifest');
    const tab = page.locator('.tab', { hasText: 'Cairn context manifest' });
    await tab.waitFor();
    await previewText(page, 'Cairn context manifest', /included\s+\d+/);
    await shot('manifest-view');
    await runCommand(page, 'View: Close All Editors');
    await tab.waitFor({ state: 'detached' });
    if ((await page.locator('.monaco-dialog-box').count()) > 0) throw new Error('a dialog appeared on close');
    await shot('manifest-closed');
  }],
];

let results = [];
try {
  results = await runSteps(steps);
} finally {
  if (page && results.some((r) => !r.ok)) await shot('failure');
  if (browser) await browser.close();
  if (server) await server.stop();
  if (results.some((r) => !r.ok)) printClientLogs(workspaceRun);
  workspaceRun.cleanup();
}
process.exit(report('ui', results) ? 0 : 1);
