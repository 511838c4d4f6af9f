// Bundles the extension, the CLI and the webview pages; copies the agent and sql.js's WASM.
//   node esbuild.mjs [--watch] [--production]
import * as esbuild from 'esbuild';
import { cpSync, mkdirSync, rmSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const node = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: !production,
  minify: production,
  // ssh2's optional native speed-ups: absent is fine, it falls back to pure JS.
  external: ['vscode', 'cpu-features', '*.node'],
  logLevel: 'info',
};

const builds = [
  { ...node, entryPoints: { extension: 'src/extension.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  {
    bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production, minify: production,
    entryPoints: { logs: 'webview-ui/logs/main.ts' }, outdir: 'dist/webview', logLevel: 'info',
  },
];

function copyAssets() {
  mkdirSync('dist', { recursive: true });
  rmSync('dist/agent', { recursive: true, force: true });
  cpSync('agent', 'dist/agent', { recursive: true, filter: (p) => !p.includes('__pycache__') });
  cpSync('node_modules/sql.js/dist/sql-wasm.wasm', 'dist/sql-wasm.wasm');
}

copyAssets();
if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
