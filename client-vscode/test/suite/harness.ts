/**
 * A minimal test runner for the real extension host: named async tests run
 * in order, each failure is recorded (the rest still run), and the results
 * are written as JSON for the runner outside (test/e2e/runInHost.mjs).
 */
import * as fs from 'fs';
import * as path from 'path';

export interface TestResult {
  name: string;
  ok: boolean;
  error?: string;
  seconds: number;
}

export type TestCase = [name: string, body: () => Promise<void>];

const POLL_MS = 100;
export const WAIT_TIMEOUT_MS = 30_000;
const MS_PER_S = 1000;

/** Polls `probe` until it returns a truthy value; fails naming `what` after the timeout. */
export async function waitFor<T>(
  what: string | (() => string),
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) {
        return value;
      }
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError ? ` (last error: ${String(lastError)})` : '';
      const label = typeof what === 'string' ? what : what();
      throw new Error(`timed out waiting for ${label}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

const SCREENSHOT_TIMEOUT_MS = 15_000;
let shots = 0;

/**
 * A screenshot of the whole VS Code window, named `name`: the runner outside
 * (test/e2e/runInHost.mjs) takes it and writes a marker when it is saved; this
 * waits for the marker. Without a runner (CAIRN_TEST_SHOTS unset) it does nothing.
 */
export async function screenshot(name: string): Promise<void> {
  const folder = process.env.CAIRN_TEST_SHOTS;
  if (!folder) return;
  const file = `${String(++shots).padStart(2, '0')}-${name}`;
  console.log(`IN-HOST SCREENSHOT ${file}`);
  await waitFor(`the screenshot ${file}`, () => fs.existsSync(path.join(folder, `${file}.done`)), SCREENSHOT_TIMEOUT_MS);
}

const CLICK_TIMEOUT_MS = 30_000;
let clicks = 0;

/**
 * A user's click in the VS Code window on the element with ARIA `role` and accessible name
 * `label` (`name` names the request): the runner outside (test/e2e/runInHost.mjs) clicks it
 * and writes a marker, `.done` or `.failed` with why; this waits for it. Needs the runner.
 */
export async function click(name: string, role: string, label: string): Promise<void> {
  const folder = process.env.CAIRN_TEST_SHOTS;
  if (!folder) throw new Error(`clicking the ${role} "${label}" needs the runner (CAIRN_TEST_SHOTS is unset)`);
  const file = path.join(folder, `click-${String(++clicks).padStart(2, '0')}-${name}`);
  console.log(`IN-HOST CLICK ${path.basename(file)} ${JSON.stringify({ role, label })}`);
  const failed = `${file}.failed`;
  await waitFor(`the click on the ${role} "${label}"`, () => fs.existsSync(`${file}.done`) || fs.existsSync(failed), CLICK_TIMEOUT_MS);
  if (fs.existsSync(failed)) {
    throw new Error(`the ${role} "${label}" could not be clicked: ${fs.readFileSync(failed, 'utf8')}`);
  }
}

/** Runs the tests in order; `only` (a regex source) keeps the first test and the matching ones. */
export async function runTests(
  tests: TestCase[],
  resultsPath: string | undefined,
  only: string | undefined,
): Promise<TestResult[]> {
  const results: TestResult[] = [];
  const pattern = only ? new RegExp(only) : undefined;
  const selected = pattern ? tests.filter(([name], i) => i === 0 || pattern.test(name)) : tests;
  for (const [name, body] of selected) {
    const started = Date.now();
    try {
      await body();
      results.push({ name, ok: true, seconds: (Date.now() - started) / MS_PER_S });
      console.log(`IN-HOST PASS ${name}`);
    } catch (error) {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      results.push({ name, ok: false, error: text, seconds: (Date.now() - started) / MS_PER_S });
      console.log(`IN-HOST FAIL ${name}: ${text}`);
    }
  }
  if (resultsPath) {
    fs.writeFileSync(resultsPath, JSON.stringify(results, null, 2));
  }
  return results;
}
