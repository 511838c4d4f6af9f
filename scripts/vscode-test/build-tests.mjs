#!/usr/bin/env node
// Compiles the in-extension-host suites (test/vscode/suite/**/*.ts) to out/vscode-test/suite/,
// one CommonJS file per source file. Relative imports are bundled in; packages (mocha) and
// `vscode` stay external and resolve from the repo's node_modules / the extension host.
import * as esbuild from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SUITE_SRC = join(ROOT, 'test/vscode/suite');
export const SUITE_OUT = join(ROOT, 'out/vscode-test/suite');

function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

export async function buildTests() {
  rmSync(SUITE_OUT, { recursive: true, force: true });
  const entryPoints = Object.fromEntries(tsFiles(SUITE_SRC).map((f) => [relative(SUITE_SRC, f).replace(/\.ts$/, ''), f]));
  await esbuild.build({
    entryPoints,
    outdir: SUITE_OUT,
    bundle: true,
    packages: 'external',
    external: ['vscode'],
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return join(SUITE_OUT, 'index.js');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const entry = await buildTests();
  console.log(`built ${relative(ROOT, entry)}`);
}
