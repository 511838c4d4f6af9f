// Checks a Python package's import graph (importGraph.py) against a table of layers: the agent's
// layering test uses it on the agent, and on planted packages to show that it does catch things.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { PY } from './helpers';

export interface Layer {
  name: string;
  modules: string[];
  /** Only the dispatch layer: it may import lower modules inside functions, so that a short
   * CLI call loads just the command it runs. Nothing imports it, so this dodges no cycle. */
  lazy?: boolean;
}

export interface ImportEdge {
  from: string;
  to: string;
  line: number;
  top: boolean;
  names: string[];
}

export interface ImportGraph {
  modules: string[];
  imports: ImportEdge[];
  dynamic: { from: string; line: number }[];
}

const SCRIPT = path.join(__dirname, 'importGraph.py');

export function importGraph(pkgDir: string): ImportGraph {
  return JSON.parse(execFileSync(PY, ['-I', SCRIPT, pkgDir], { encoding: 'utf8' })) as ImportGraph;
}

/** Every breach of the table, one line each; none for a package that keeps to it. A module
 * imports only modules of lower layers (so there can be no cycle), at its top level unless its
 * layer is lazy, and no `_private` name of another module. */
export function checkLayers(g: ImportGraph, layers: Layer[]): string[] {
  const out: string[] = [];
  const level = new Map<string, number>();
  layers.forEach((l, i) =>
    l.modules.forEach((m) => {
      if (level.has(m)) out.push(`${m} is in two layers`);
      level.set(m, i);
    }),
  );
  const lazy = (m: string) => layers[level.get(m) ?? -1]?.lazy === true;
  for (const m of g.modules) if (!level.has(m)) out.push(`${m} is in no layer: add it to the table`);
  for (const m of level.keys()) if (!g.modules.includes(m)) out.push(`${m} is in the table but not in the package`);
  for (const e of g.imports) {
    const at = `${e.from}:${e.line}`;
    const [a, b] = [level.get(e.from), level.get(e.to)];
    if (a !== undefined && b !== undefined && b >= a) {
      out.push(`${at} imports ${e.to} of layer ${layers[b].name}, not below its own (${layers[a].name})`);
    }
    if (!e.top && !lazy(e.from)) out.push(`${at} imports ${e.to} inside a function or class`);
    for (const n of e.names) if (n.startsWith('_')) out.push(`${at} imports the private name ${e.to}.${n}`);
  }
  for (const d of g.dynamic) if (!lazy(d.from)) out.push(`${d.from}:${d.line} imports dynamically`);
  return out;
}
