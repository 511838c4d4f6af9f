import * as fs from 'node:fs';
import * as path from 'node:path';
import { IgnoreRules } from './ignoreRules';

export interface WalkEntry {
  rel: string; // posix path below the root
  abs: string;
  stat: fs.Stats;
}

/**
 * The entries a workdir sync sends, in a stable order, honouring ignore files as SkyPilot does:
 * `.skyignore` files when the root has one, otherwise `.gitignore` files, each applying below
 * its own directory. Directories are yielded before their contents.
 */
export function* walkWorkdir(root: string, extraRules = '', onIgnored?: () => void): Generator<WalkEntry> {
  const ignoreName = fs.existsSync(path.join(root, '.skyignore')) ? '.skyignore' : '.gitignore';
  const rules = new IgnoreRules();
  rules.add('', extraRules);
  function* walk(rel: string): Generator<WalkEntry> {
    const abs = path.join(root, rel);
    const ignoreFile = path.join(abs, ignoreName);
    if (fs.existsSync(ignoreFile)) rules.add(rel, fs.readFileSync(ignoreFile, 'utf8'));
    const names = fs.readdirSync(abs).sort();
    for (const name of names) {
      const childRel = rel ? `${rel}/${name}` : name;
      const childAbs = path.join(abs, name);
      const stat = fs.lstatSync(childAbs);
      if (rules.ignores(childRel, stat.isDirectory())) {
        onIgnored?.();
        continue;
      }
      yield { rel: childRel, abs: childAbs, stat };
      if (stat.isDirectory()) yield* walk(childRel);
    }
  }
  yield* walk('');
}
