import * as path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(__dirname, '../..');

/**
 * Bundles a TypeScript test worker to plain JS under out/ (inside the repo, so node_modules
 * resolves): a child started many times then costs node's start-up only, not a transpiler's.
 */
export async function bundleWorker(entry: string): Promise<string> {
  const outfile = path.join(ROOT, 'out', 'test-workers', path.basename(entry).replace(/\.ts$/, '.js'));
  await build({
    entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'error',
    external: ['vscode', 'cpu-features', '*.node'],
  });
  return outfile;
}
