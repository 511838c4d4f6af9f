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
import { buildWaiters } from './scripts/build-waiter.mjs';

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
  // Two small core modules with no imports of their own the tree needs (job statuses, the
  // leak sweep's labels); everything else of the core stays out of the shell.
  /^src\/core\/(?!jobs\/protocol\.ts$|ops\/leaksSummary\.ts$)/,
  /^src\/ui\/commands\//,
  /^src\/ui\/taskYaml\/(?!taskFiles\.ts$)/,
  /^schemas\//,
];

const checkShell = {
  name: 'check-extension-shell',
  setup(build) {
    build.onEnd((result) => {
      if (!result.metafile) return;
      const inputs = Object.keys(result.metafile.inputs);
      const heavy = inputs.filter((i) => CORE_ONLY.some((re) => re.test(i)));
      // Returned: an error pushed onto result.errors here is neither printed nor fails the build.
      if (heavy.length) {
        return { errors: [{ text: `dist/extension.js must not contain core modules (import them type-only and reach them through services.core()): ${heavy.join(', ')}` }] };
      }
      return undefined;
    });
  },
};

/** SDKs that only the per-cloud and per-store bundles may carry (loaded on first use). */
const SDKS = /^node_modules\/(@aws-sdk|@smithy|@azure|@google-cloud|google-auth-library|gaxios)\//;

const checkNoSdk = {
  name: 'check-no-sdk',
  setup(build) {
    build.onEnd((result) => {
      const sdk = Object.keys(result.metafile?.inputs ?? {}).filter((i) => SDKS.test(i));
      const pkgs = [...new Set(sdk.map((i) => i.split('/').slice(1, i.split('/')[1].startsWith('@') ? 3 : 2).join('/')))];
      // Returned, not pushed onto result.errors: esbuild reports (and fails on) what onEnd returns.
      if (pkgs.length) return { errors: [{ text: `${Object.keys(build.initialOptions.entryPoints).join(', ')}: a cloud or storage SDK is bundled into the core (${pkgs.join(', ')}); reach it through its load.ts` }] };
      return undefined;
    });
  },
};

/** The thin CLI entry may hold only the few small modules it needs: its size is start-up time. */
const THIN = /^src\/(cli\/thin\.ts|core\/util\/trace\.ts|core\/transport\/holder\/(frames|socketDir|cliRequest)\.ts)$/;
const checkThin = {
  name: 'check-thin-cli',
  setup(build) {
    build.onEnd((result) => {
      const extra = Object.keys(result.metafile?.inputs ?? {}).filter((i) => !THIN.test(i));
      if (extra.length) return { errors: [{ text: `dist/cli.js (src/cli/thin.ts) must stay small; it bundles ${extra.join(', ')}` }] };
      return undefined;
    });
  },
};

const builds = [
  { ...node, entryPoints: { extension: 'src/extension.ts' }, outdir: dist, metafile: true, plugins: [checkShell] },
  { ...node, entryPoints: { 'extension-core': 'src/extensionCore.ts' }, outdir: dist, metafile: true, plugins: [checkNoSdk] },
  // dist/cli.js is the thin entry (src/cli/thin.ts: node built-ins only, a few KB); it runs
  // dist/cli-main.js, the CLI itself, unless a warm worker of the connection holder takes the run.
  { ...node, entryPoints: { cli: 'src/cli/thin.ts' }, outdir: dist, banner: { js: '#!/usr/bin/env node' }, metafile: true, plugins: [checkNoSdk, checkThin] },
  { ...node, entryPoints: { 'cli-main': 'src/cli/main.ts' }, outdir: dist, banner: { js: '#!/usr/bin/env node' }, metafile: true, plugins: [checkNoSdk] },
  // One bundle per cloud, loaded by src/core/clouds/<cloud>/load.ts on first use of that cloud:
  // neither the extension nor the CLI carries an SDK. GCP is plain REST with google-auth-library.
  // keepNames for Azure: it shared this option with GCP when google-gax needed it (its serializer
  // recognised Long values by constructor name); kept until shown unneeded for the Azure SDK.
  { ...node, entryPoints: { 'clouds/aws': 'src/core/clouds/aws/index.ts', 'clouds/gcp': 'src/core/clouds/gcp/index.ts' }, outdir: dist },
  { ...node, entryPoints: { 'clouds/azure': 'src/core/clouds/azure/index.ts' }, outdir: dist, keepNames: true },
  { ...node, entryPoints: { 'clouds/kubernetes': 'src/core/clouds/kubernetes/index.ts' }, outdir: dist },
  // One bundle per bucket store, loaded by src/core/storage/buckets/load.ts on first use.
  {
    ...node, outdir: dist,
    entryPoints: { 'storage/s3': 'src/core/storage/buckets/s3.ts', 'storage/gcs': 'src/core/storage/buckets/gcs.ts', 'storage/azure': 'src/core/storage/buckets/azure.ts' },
  },
  {
    bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production, minify: production,
    entryPoints: { logs: 'webview-ui/logs/main.ts' }, outdir: join(dist, 'webview'), logLevel: 'info',
  },
];

function copyAssets() {
  // The agent's native waiter first, so that dist/agent carries it (scripts/build-waiter.mjs).
  for (const line of buildWaiters().said) console.log(`skydeck-wait ${line}`);
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
