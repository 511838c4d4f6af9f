#!/usr/bin/env node
// The import graph of src/ (issue 15): how many import cycles there are (strongly connected
// groups of files), and how many imports cross a layer the wrong way. Type-only imports count:
// they tie the files together for a reader just the same.
//
//   node scripts/import-graph.mjs [--json] [--src=DIR]   (DIR: another tree, for the script's own test)
//
// Layers, lowest first: core (src/core, never vscode), ui (src/ui), entries (src/extension*.ts,
// src/cli). A wrong-way import is a lower layer importing a higher one.
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const srcArg = process.argv.find((a) => a.startsWith('--src='));
const SRC = srcArg ? resolve(srcArg.slice(6)) : join(ROOT, 'src');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []);
}

function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) if (existsSync(c) && statSync(c).isFile()) return c;
  return undefined;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function layer(f) {
  const r = relative(SRC, f);
  if (r.startsWith('core/')) return 0;
  if (r.startsWith('ui/')) return 1;
  return 2;
}

const all = files(SRC);
const edges = new Map(all.map((f) => [f, new Set()]));
let wrongWay = [];
for (const f of all) {
  const text = readFileSync(f, 'utf8');
  for (const m of text.matchAll(IMPORT)) {
    const to = resolveImport(f, m[1] ?? m[2] ?? m[3]);
    if (!to || !edges.has(to)) continue;
    edges.get(f).add(to);
    if (layer(to) > layer(f)) wrongWay.push(`${relative(SRC, f)} -> ${relative(SRC, to)}`);
  }
}

// Tarjan's strongly connected components: each component of more than one file is a cycle.
let index = 0;
const idx = new Map(), low = new Map(), stack = [], on = new Set(), sccs = [];
function strong(v) {
  idx.set(v, index); low.set(v, index); index++; stack.push(v); on.add(v);
  for (const w of edges.get(v)) {
    if (!idx.has(w)) { strong(w); low.set(v, Math.min(low.get(v), low.get(w))); }
    else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const c = [];
    let w;
    do { w = stack.pop(); on.delete(w); c.push(w); } while (w !== v);
    if (c.length > 1) sccs.push(c.map((x) => relative(SRC, x)).sort());
  }
}
for (const f of all) if (!idx.has(f)) strong(f);

const result = {
  files: all.length,
  imports: [...edges.values()].reduce((n, s) => n + s.size, 0),
  cycles: sccs.length,
  files_in_cycles: sccs.reduce((n, c) => n + c.length, 0),
  largest_cycle: Math.max(0, ...sccs.map((c) => c.length)),
  wrong_way_imports: wrongWay.length,
};
if (process.argv.includes('--json')) console.log(JSON.stringify({ ...result, cycle_members: sccs, wrong_way: wrongWay }));
else {
  console.log(JSON.stringify(result));
  for (const c of sccs) console.log(`cycle (${c.length}): ${c.join(', ')}`);
  for (const w of wrongWay) console.log(`wrong way: ${w}`);
}
