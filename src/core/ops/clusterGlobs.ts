import { listClusters } from '../state';
import type { OpsContext } from './context';
import { OpsError } from './errors';

// Cluster names as `sky down/stop/start/autostop/status/queue` take them: a name or a glob
// pattern (Python fnmatch: `*`, `?`, `[seq]`, `[!seq]`). Cluster names never hold these
// characters (state/clusterName.ts), so a word with one is always a pattern.

const GLOB = /[*?[]/;

export function isGlob(word: string): boolean {
  return GLOB.test(word);
}

/** fnmatch's pattern as an anchored RegExp; everything but the wildcards matches itself. */
export function globRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${out}$`, 's');
}

/**
 * The names the words stand for, in order, each once. A plain name passes through (the
 * command says if it does not exist); a pattern that matches nothing is a usage error.
 */
export async function expandClusterNames(ctx: OpsContext, words: string[]): Promise<string[]> {
  if (!words.some(isGlob)) return [...new Set(words)];
  const names = (await ctx.store.read((db) => listClusters(db))).map((c) => c.name);
  const out: string[] = [];
  for (const w of words) {
    if (!isGlob(w)) {
      out.push(w);
      continue;
    }
    const re = globRegExp(w);
    const hits = names.filter((n) => re.test(n));
    if (!hits.length) throw new OpsError('usage', `no cluster matches ${JSON.stringify(w)}${names.length ? ` (clusters: ${names.join(', ')})` : ''}`);
    out.push(...hits);
  }
  return [...new Set(out)];
}
