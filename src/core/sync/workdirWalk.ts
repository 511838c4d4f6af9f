import * as fs from 'node:fs';
import * as path from 'node:path';
import { IgnoreRules } from './ignoreRules';

/** What a walk needs of an entry's stat: fs.Stats, or a listing's record (treeListing.ts). */
export interface WalkStat {
  mode: number;
  size: number;
  mtimeMs: number;
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
}

export interface WalkEntry {
  rel: string; // posix path below the root
  abs: string;
  stat: WalkStat;
  /** The link target, when the view already knows it (a listing); else read from abs. */
  link?: string;
}

/** Where a walk reads the tree from: the file system, or a listing taken at once (treeListing.ts). */
export interface TreeView {
  /** Sorted names in a directory (rel '' is the root). */
  names(rel: string): string[];
  stat(rel: string): WalkStat;
  link?(rel: string): string | undefined;
  /** The text of an ignore file, or undefined when there is none. */
  ignoreText(rel: string): string | undefined;
}

/**
 * What decided a walk's pruning: the ignore files read (path and text) and the directories
 * the rules left out. While the first is unchanged, a listing may skip the second (fastScan.ts).
 */
export interface WalkRecord {
  rulesKey: string[];
  pruned: string[];
}

export function fsView(root: string): TreeView {
  return {
    names: (rel) => fs.readdirSync(path.join(root, rel)).sort(),
    stat: (rel) => fs.lstatSync(path.join(root, rel)),
    ignoreText: (rel) => {
      const f = path.join(root, rel);
      // Only a file (or a link to one) holds rules: a directory of that name has none, as in
      // git and in a listing's view (treeListing.ts), instead of failing every sync.
      let st: fs.Stats;
      try {
        st = fs.statSync(f);
      } catch {
        return undefined;
      }
      return st.isFile() ? fs.readFileSync(f, 'utf8') : undefined;
    },
  };
}

/**
 * The entries a workdir sync sends, in a stable order, honouring ignore files as SkyPilot does:
 * `.skyignore` files when the root has one, otherwise `.gitignore` files, each applying below
 * its own directory. Directories are yielded before their contents.
 */
export function* walkWorkdir(
  root: string, extraRules = '', onIgnored?: () => void, view: TreeView = fsView(root), record?: WalkRecord,
): Generator<WalkEntry> {
  const skyignore = view.ignoreText('.skyignore');
  const ignoreName = skyignore !== undefined ? '.skyignore' : '.gitignore';
  const rules = new IgnoreRules();
  rules.add('', extraRules);
  const base = root.endsWith('/') && root.length > 1 ? root.slice(0, -1) : root;
  record?.rulesKey.push(ignoreName, extraRules);
  function* walk(rel: string): Generator<WalkEntry> {
    const ignoreRel = rel ? `${rel}/${ignoreName}` : ignoreName;
    const text = rel === '' && skyignore !== undefined ? skyignore : view.ignoreText(ignoreRel);
    if (text !== undefined) {
      rules.add(rel, text);
      record?.rulesKey.push(`${ignoreRel}\0${text}`);
    }
    for (const name of view.names(rel)) {
      const childRel = rel ? `${rel}/${name}` : name;
      const stat = view.stat(childRel);
      if (rules.ignores(childRel, stat.isDirectory())) {
        onIgnored?.();
        if (record && stat.isDirectory()) record.pruned.push(childRel);
        continue;
      }
      yield { rel: childRel, abs: `${base}/${childRel}`, stat, link: view.link?.(childRel) };
      if (stat.isDirectory()) yield* walk(childRel);
    }
  }
  yield* walk('');
}
