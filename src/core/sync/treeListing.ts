// A workdir listed at once by GNU find (Linux): its C walk stats 20,000 files in a third of
// the time Node's lstatSync takes, and it runs beside us, so the node's answer to the drift
// check is read while the tree is listed. The listing is then walked like the file system
// (workdirWalk.ts TreeView), so ignore rules and order are exactly the file-system walk's.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TreeView, WalkStat } from './workdirWalk';
import { runFind } from './findRunner';

const FORMAT = '%P\\0%y\\0%s\\0%T@\\0%m\\0%l\\0';

/** A -path pattern matching exactly `rel` below ".". */
const exactPath = (rel: string) => `./${rel.replace(/[*?[\\]/g, '\\$&')}`;

/**
 * Lists `root` with find, printing but not entering the directories in `pruned`. Undefined when
 * find cannot (not GNU find, root unreadable): the caller walks the file system instead.
 */
export async function listTree(root: string, pruned: string[]): Promise<TreeView | undefined> {
  const out = await runFind(['.', '-mindepth', '1', '-printf', FORMAT, ...pruneArgs(pruned)], root);
  return out === undefined ? undefined : parseListing(root, out);
}

/**
 * The entries of `root` (outside `pruned`) whose inode changed (ctime: content, mode, name,
 * links — none of it can be set back by a program) after `sinceMs`. Undefined when find cannot.
 */
export async function listChanged(root: string, pruned: string[], sinceMs: number): Promise<Map<string, Listed> | undefined> {
  const since = `@${Math.floor(sinceMs / 1000)}.${String(Math.floor(sinceMs % 1000)).padStart(3, '0')}`;
  const prune = pruned.length ? [...pruneArgs(pruned), '-o'] : [];
  // The root is listed too (as ''): a file made or removed there changes only the root.
  const out = await runFind(['.', ...prune, '-newerct', since, '-printf', FORMAT], root);
  if (out === undefined) return undefined;
  const changed = new Map<string, Listed>();
  return eachRecord(out, (rel, st) => void changed.set(rel, st), true) ? changed : undefined;
}

/** Prints (as the caller's -printf) but does not enter these directories. */
function pruneArgs(pruned: string[]): string[] {
  return pruned.length ? ['-type', 'd', '(', ...pruned.flatMap((p, i) => [...(i ? ['-o'] : []), '-path', exactPath(p)]), ')', '-prune'] : [];
}



export class Listed implements WalkStat {
  constructor(readonly t: string, readonly mode: number, readonly size: number, readonly mtimeMs: number, readonly link: string) {}
  isDirectory(): boolean { return this.t === 'd'; }
  isFile(): boolean { return this.t === 'f'; }
  isSymbolicLink(): boolean { return this.t === 'l'; }
}

/** find's %T@ ("1796246559.0664360520") as Node's mtimeMs, by Node's expression, to the bit. */
function mtimeMsOf(text: string): number {
  const dot = text.indexOf('.');
  const sec = Number(dot < 0 ? text : text.slice(0, dot));
  const nsec = dot < 0 ? 0 : Number(text.slice(dot + 1, dot + 10).padEnd(9, '0'));
  return sec * 1000 + nsec / 1e6;
}

/** Calls `each` for every record of find's output; false when one does not parse. */
function eachRecord(out: Buffer, each: (rel: string, st: Listed) => void, withRoot = false): boolean {
  const f = out.toString('utf8').split('\0');
  for (let i = 0; i + 5 < f.length; i += 6) {
    const rel = f[i];
    const mtimeMs = mtimeMsOf(f[i + 3]);
    const mode = parseInt(f[i + 4], 8);
    // Negative or odd times and modes: not worth a second parser; the file system is walked.
    if ((!rel && !withRoot) || !(mtimeMs >= 0) || !(mode >= 0)) return false;
    each(rel, new Listed(f[i + 1], mode, Number(f[i + 2]), mtimeMs, f[i + 5]));
  }
  return true;
}

export function parseListing(root: string, out: Buffer): TreeView | undefined {
  const byRel = new Map<string, Listed>();
  const children = new Map<string, string[]>([['', []]]);
  const ok = eachRecord(out, (rel, st) => {
    byRel.set(rel, st);
    const slash = rel.lastIndexOf('/');
    const parent = slash < 0 ? '' : rel.slice(0, slash);
    let list = children.get(parent);
    if (!list) children.set(parent, (list = []));
    list.push(slash < 0 ? rel : rel.slice(slash + 1));
  });
  if (!ok) return undefined;
  const sorted = new Set<string>();
  return {
    names: (rel) => {
      const list = children.get(rel) ?? [];
      if (!sorted.has(rel)) list.sort();
      sorted.add(rel);
      return list;
    },
    stat: (rel) => {
      const st = byRel.get(rel);
      if (!st) throw new Error(`${path.join(root, rel)} is not in the listing`);
      return st;
    },
    link: (rel) => byRel.get(rel)?.link,
    ignoreText: (rel) => {
      const st = byRel.get(rel);
      if (!st || st.isDirectory()) return undefined;
      const f = path.join(root, rel);
      try {
        // Only a file (or a link to one): a fifo's read would wait for a writer forever.
        return fs.statSync(f).isFile() ? fs.readFileSync(f, 'utf8') : undefined;
      } catch {
        return undefined; // a dangling link: no rules, as on the file system (workdirWalk.ts)
      }
    },
  };
}
