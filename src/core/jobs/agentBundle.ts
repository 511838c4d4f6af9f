import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { archiveDirectory } from '../sync/workdirArchive';

const SKIP = '__pycache__/\n*.pyc\n';

/** The agent directory shipped with Skydeck: dist/agent in the bundle, agent/ in the sources. */
export function agentSourceDir(): string {
  const candidates = [path.join(__dirname, 'agent'), path.resolve(__dirname, '../../../agent')];
  const found = candidates.find((d) => fs.existsSync(path.join(d, 'skydeck_agent.py')));
  if (!found) throw new Error(`the Skydeck agent is missing (looked in ${candidates.join(', ')}); reinstall Skydeck`);
  return found;
}

let cached: { dir: string; hash: string } | undefined;

/** A hash over the agent's files: a node whose copy has another hash gets a fresh upload. */
export function agentHash(dir = agentSourceDir()): string {
  if (cached?.dir === dir && process.env.SKYDECK_AGENT_DEV !== '1') return cached.hash;
  const h = createHash('sha256');
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
      if (name === '__pycache__' || name.endsWith('.pyc')) continue;
      const r = rel ? `${rel}/${name}` : name;
      const st = fs.statSync(path.join(dir, r));
      if (st.isDirectory()) walk(r);
      else h.update(r).update('\0').update(fs.readFileSync(path.join(dir, r))).update('\0');
    }
  };
  walk('');
  cached = { dir, hash: h.digest('hex').slice(0, 16) };
  return cached.hash;
}

export function agentArchive(dir = agentSourceDir()): Readable {
  return archiveDirectory(dir, undefined, SKIP);
}
