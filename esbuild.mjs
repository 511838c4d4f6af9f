// Bundles the extension, the CLI and the webview pages; copies the agent and sql.js's WASM.
//   node esbuild.mjs [--watch] [--production] [--outdir=DIR]   (DIR: instead of dist/, e.g. for bench/ui.ts)
//
// The extension is two files: dist/extension.js (the UI shell that activate() runs) and
// dist/extension-core.js (core/ops, ssh2, sql.js, the task parser; src/extensionCore.ts),
// which the shell requires on first use. Activation cost is mostly parsing the file it loads,
// so the shell must stay small: checkShell() fails the build if a heavy module slips into it.
import * as esbuild from 'esbuild';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const dist = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length) || 'dist';

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

/** Inputs that belong in dist/extension-core.js only (paths as esbuild's metafile names them). */
const CORE_ONLY = [
  /^node_modules\//,
  /^src\/core\//,
  /^src\/ui\/commands\//,
  /^src\/ui\/taskYaml\/(?!taskFiles\.ts$)/,
  // One copy of the node classes, shared with the commands' instanceof checks.
  /^src\/ui\/tree\/(clusterNode|jobNode)\.ts$/,
  /^schemas\//,
];

const checkShell = {
  name: 'check-extension-shell',
  setup(build) {
    build.onEnd((result) => {
      if (!result.metafile) return;
      const inputs = Object.keys(result.metafile.inputs);
      const heavy = inputs.filter((i) => CORE_ONLY.some((re) => re.test(i)));
      if (heavy.length) {
        result.errors.push({
          text: `dist/extension.js must not contain core modules (import them type-only and reach them through services.core()): ${heavy.join(', ')}`,
        });
      }
    });
  },
};

const builds = [
  { ...node, entryPoints: { extension: 'src/extension.ts' }, outdir: dist, metafile: true, plugins: [checkShell] },
  { ...node, entryPoints: { 'extension-core': 'src/extensionCore.ts' }, outdir: dist },
  { ...node, entryPoints: { cli: 'src/cli/main.ts' }, outdir: dist, banner: { js: '#!/usr/bin/env node' } },
  // One bundle per cloud, loaded by src/core/clouds/<cloud>/load.ts on first use of that cloud:
  // neither the extension nor the CLI carries an SDK. GCP is plain REST with google-auth-library.
  // keepNames for Azure: it shared this option with GCP when google-gax needed it (its serializer
  // recognised Long values by constructor name); kept until shown unneeded for the Azure SDK.
  { ...node, entryPoints: { 'clouds/aws': 'src/core/clouds/aws/index.ts', 'clouds/gcp': 'src/core/clouds/gcp/index.ts' }, outdir: dist },
  { ...node, entryPoints: { 'clouds/azure': 'src/core/clouds/azure/index.ts' }, outdir: dist, keepNames: true },
  {
    bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production, minify: production,
    entryPoints: { logs: 'webview-ui/logs/main.ts' }, outdir: join(dist, 'webview'), logLevel: 'info',
  },
];

function copyAssets() {
  mkdirSync(dist, { recursive: true });
  rmSync(join(dist, 'agent'), { recursive: true, force: true });
  cpSync('agent', join(dist, 'agent'), { recursive: true, filter: (p) => !p.includes('__pycache__') });
  cpSync('node_modules/sql.js/dist/sql-wasm.wasm', join(dist, 'sql-wasm.wasm'));
}

copyAssets();
if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
