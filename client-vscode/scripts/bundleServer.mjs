// Builds the Cairn server's wheel into server/ (shipped in the .vsix; the
// extension installs it into the environment it manages). `--with-deps` also
// downloads its dependencies' wheels for this machine's platform into
// server/wheels/, for a .vsix that installs offline. The Python used is
// $CAIRN_PYTHON, else python3.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const extension = resolve(here, '..');
const repo = resolve(extension, '..');
const out = join(extension, 'server');
const python = process.env.CAIRN_PYTHON ?? 'python3';

function pip(...args) {
  const run = spawnSync(python, ['-m', 'pip', ...args], { stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`bundle-server: ${python} -m pip ${args.join(' ')} failed (exit ${run.status})`);
    process.exit(1);
  }
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
pip('wheel', '--quiet', '--disable-pip-version-check', '--no-deps', '--wheel-dir', out, repo);
const [wheel] = readdirSync(out).filter((name) => name.endsWith('.whl'));
if (!wheel) {
  console.error('bundle-server: no wheel was built');
  process.exit(1);
}
if (process.argv.includes('--with-deps')) {
  pip('download', '--quiet', '--disable-pip-version-check', '--only-binary', ':all:', '--dest', join(out, 'wheels'), join(out, wheel));
  rmSync(join(out, 'wheels', wheel), { force: true });
}
console.log(`bundle-server: ${join('server', wheel)}`);
