/**
 * The messages that explain why the server is not running, each naming the
 * fix: command not found, a Python without the `cairn` module, a server that
 * dies during startup, a crash loop, no server installed at all.
 */
import { RESTART_WINDOW_MS } from './constants';
import { SERVER_DISTRIBUTION } from './settingKeys';
import { ServerLaunch } from './settings';

const MS_PER_MINUTE = 60_000;
const INSTALL_HINT = 'run "Cairn: Install Server" (an environment the extension manages)';

export function notInstalledMessage(): string {
  return (
    `Cairn: the Cairn server is not installed. To use Cairn, ${INSTALL_HINT}, or install it yourself ` +
    `with \`pip install ${SERVER_DISTRIBUTION}\` and set cairn.server.pythonPath to that Python.`
  );
}

export function notFoundMessage(launch: ServerLaunch): string {
  if (launch.pythonPath) {
    return (
      `Cairn: could not start \`${launch.display}\`: the Python interpreter \`${launch.pythonPath}\` ` +
      'does not exist. Fix cairn.server.pythonPath (or clear it to use cairn.server.command).'
    );
  }
  return (
    `Cairn: could not start \`${launch.display}\`: \`${launch.command}\` was not found. ` +
    `Fix cairn.server.command, ${INSTALL_HINT}, or install it with \`pip install ${SERVER_DISTRIBUTION}\` ` +
    `(\`pip install -e .\` in a Cairn checkout) and set cairn.server.pythonPath to a Python that has it.`
  );
}

export function startFailureMessage(launch: ServerLaunch, stderr: string[], exitCode: number | null): string {
  const noModule = stderr.some((line) => /No module named '?cairn'?/.test(line));
  if (noModule) {
    const python = launch.pythonPath ?? launch.command;
    return (
      `Cairn: could not start \`${launch.display}\`: \`${python}\` has no module \`cairn\`. ` +
      `Install it there with \`${python} -m pip install ${SERVER_DISTRIBUTION}\`, or set cairn.server.pythonPath ` +
      'to the Python of the environment where Cairn is installed.'
    );
  }
  const wrongCairn = stderr.some((line) => /invalid choice: 'serve'/.test(line));
  if (wrongCairn) {
    return (
      `Cairn: \`${launch.command}\` is another program called cairn (the PyPI package \`cairn\` is unrelated). ` +
      `Install the server with \`pip install ${SERVER_DISTRIBUTION}\` or ${INSTALL_HINT}.`
    );
  }
  const last = stderr.length > 0 ? ` Last output: ${stderr[stderr.length - 1]}` : '';
  const code = exitCode === null ? '' : ` (exit code ${exitCode})`;
  return `Cairn: could not start \`${launch.display}\`${code}: the server did not complete initialization.${last} See the Cairn output for details.`;
}

export function crashLoopMessage(launch: ServerLaunch, crashes: number, stderr: string[]): string {
  const minutes = Math.round(RESTART_WINDOW_MS / MS_PER_MINUTE);
  const last = stderr.length > 0 ? ` Last output: ${stderr[stderr.length - 1]}` : '';
  return (
    `Cairn: \`${launch.display}\` crashed ${crashes} times in ${minutes} minutes and will not be restarted.${last} ` +
    'Fix the problem, then run "Cairn: Restart Server".'
  );
}
