// Bundles the extension (and vscode-languageclient) into dist/extension.js and
// the chat webview's script into dist/webview/chat.js; `--production` (run by
// vsce before packaging) minifies both.
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'info',
};
const builds = [
  {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
  },
  {
    ...common,
    entryPoints: ['src/webview/chat.ts'],
    outfile: 'dist/webview/chat.js',
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
  },
];

if (watch) {
  for (const options of builds) {
    const context = await esbuild.context(options);
    await context.watch();
  }
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
