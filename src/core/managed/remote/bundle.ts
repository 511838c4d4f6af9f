// The CLI bundle the controller node runs: the CLI entry this process runs (dist/cli.js),
// sql.js's WASM beside it, and the agent directory it installs on job clusters. Its content
// hash names its directory on the node, so a new version never runs an old bundle.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface CliBundle {
  /** Directory holding the entry (dist/). */
  dir: string;
  /** File name of the entry inside dir, e.g. cli.js. */
  entry: string;
  /** Paths relative to dir, files and directories, uploaded as they are. */
  parts: string[];
  /** 16 hex digits over every file's path and bytes. */
  hash: string;
}

const SKIP = (name: string) => name === '__pycache__' || name.endsWith('.pyc');

/** The bundle around `entryFile` (default: the running CLI). Missing parts are named. */
export function cliBundle(entryFile = process.argv[1]): CliBundle {
  if (!entryFile || !entryFile.endsWith('.js')) throw new Error(`the managed-jobs controller runs Skydeck's bundled CLI (dist/cli.js); this process runs ${entryFile ?? 'nothing'}: build it with "npm run build"`);
  const dir = path.dirname(path.resolve(entryFile));
  const entry = path.basename(entryFile);
  const parts = [entry, 'sql-wasm.wasm', 'agent'];
  for (const p of parts) if (!fs.existsSync(path.join(dir, p))) throw new Error(`the CLI bundle in ${dir} lacks ${p}: rebuild it with "npm run build"`);
  const h = createHash('sha256');
  const walk = (rel: string) => {
    const st = fs.statSync(path.join(dir, rel));
    if (!st.isDirectory()) {
      h.update(rel).update('\0').update(fs.readFileSync(path.join(dir, rel))).update('\0');
      return;
    }
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) if (!SKIP(name)) walk(`${rel}/${name}`);
  };
  for (const p of parts) walk(p);
  return { dir, entry, parts, hash: h.digest('hex').slice(0, 16) };
}
