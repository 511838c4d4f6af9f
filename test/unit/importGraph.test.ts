// src/ has no import cycle and no import from a lower layer to a higher one (core < ui <
// entries), as scripts/import-graph.mjs counts them; and the counter itself sees both.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const SCRIPT = path.resolve(__dirname, '../../scripts/import-graph.mjs');

interface Graph {
  files: number;
  cycles: number;
  cycle_members: string[][];
  wrong_way: string[];
}

const graph = (...args: string[]): Graph => JSON.parse(execFileSync(process.execPath, [SCRIPT, '--json', ...args], { encoding: 'utf8' })) as Graph;

describe('the import graph of src/', () => {
  it('has no cycle and no wrong-way import', () => {
    const g = graph();
    assert.ok(g.files > 100, `only ${g.files} files read: is --src wrong?`);
    assert.deepEqual(g.cycle_members, [], 'files that import each other in a circle');
    assert.deepEqual(g.wrong_way, [], 'a lower layer imports a higher one');
  });

  it('the counter finds a planted cycle (type-only imports count) and a core file importing the UI', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-graph-'));
    try {
      fs.mkdirSync(path.join(dir, 'core'));
      fs.mkdirSync(path.join(dir, 'ui'));
      fs.writeFileSync(path.join(dir, 'core', 'a.ts'), "import type { B } from './b';\nexport type A = B;\n");
      fs.writeFileSync(path.join(dir, 'core', 'b.ts'), "import { x } from '../ui/x';\nimport type { A } from './a';\nexport type B = A | typeof x;\n");
      fs.writeFileSync(path.join(dir, 'ui', 'x.ts'), 'export const x = 1;\n');
      const g = graph(`--src=${dir}`);
      assert.deepEqual(g.cycle_members, [['core/a.ts', 'core/b.ts']]);
      assert.deepEqual(g.wrong_way, ['core/b.ts -> ui/x.ts']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
