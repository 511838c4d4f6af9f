import * as fs from 'node:fs';
import * as path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(__dirname, '../..');

const built = new Map<string, Promise<string>>();

/**
 * Bundles a TypeScript test worker to plain JS under out/ (inside the repo, so node_modules
 * resolves): a child started many times then costs node's start-up only, not a transpiler's.
 * Once per entry per process: many files run the CLI bundle, and a build takes seconds.
 * (Callers never change the file; one that must, copies it, as remoteCli.ts does.)
 */
export function bundleWorker(entry: string): Promise<string> {
  let p = built.get(entry);
  if (!p) {
    const outfile = path.join(ROOT, 'out', 'test-workers', path.basename(entry).replace(/\.ts$/, '.js'));
    p = build({
      entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'error',
      external: ['vscode', 'cpu-features', '*.node'], write: false,
    }).then((r) => {
      // Written aside, then renamed into place: another mocha process of the same run (npm
      // test runs two at once) may be starting a child from this path while we build it.
      for (const f of r.outputFiles) {
        fs.mkdirSync(path.dirname(f.path), { recursive: true });
        const tmp = `${f.path}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, f.contents);
        fs.renameSync(tmp, f.path);
      }
      return outfile;
    });
    // A failed build is tried again by the next caller, not remembered.
    p.catch(() => built.delete(entry));
    built.set(entry, p);
  }
  return p;
}
