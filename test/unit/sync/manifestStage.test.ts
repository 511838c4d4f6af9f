// Staging a manifest from the one the sync started from (manifestStore.ts stageManifest's base):
// what did not change is kept as it is, what did is copied, and the file is what it was.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { commitManifest, readManifest, stageManifest } from '../../../src/core/sync/manifestStore';
import { digestOf, type ManifestEntry } from '../../../src/core/sync/manifest';

const f = (p: string, h = 'a'.repeat(64), m = 1000.5): ManifestEntry => ({ p, t: 'f', s: 1, m, x: 0o644, h });

describe('manifest staged from the last one', () => {
  it('keeps unchanged entries as they are, copies the changed, and writes what JSON.stringify would', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mstage-'));
    const file = path.join(dir, 'sync', 'm.json');
    const first = [f('a'), f('b'), { p: 'd', t: 'd', s: 0, m: 5, x: 0o755, h: '' } as ManifestEntry];
    commitManifest(stageManifest(file, first, digestOf(first)));
    const base = readManifest(file)!;
    // The next scan's entries: new objects; b edited (another hash), c new, racy a.
    const cur = [{ ...base.get('a')! }, f('b', 'b'.repeat(64), 2000.25), { ...base.get('d')! }, { ...f('c'), r: 1 as const }];
    const s = stageManifest(file, cur, digestOf(cur), base);
    assert.equal(s.entries.get('a'), base.get('a'), 'an unchanged entry is the one kept before');
    assert.equal(s.entries.get('d'), base.get('d'));
    assert.notEqual(s.entries.get('b'), cur[1], 'a changed entry is copied');
    assert.notEqual(s.entries.get('c'), cur[3]);
    assert.equal(fs.readFileSync(s.tmp, 'utf8'), JSON.stringify({ v: 1, entries: cur }));
    cur[1].h = 'c'.repeat(64); // a hash filled in later on the scan's entry
    commitManifest(s);
    assert.equal(readManifest(file)!.get('b')!.h, 'b'.repeat(64));
    // The same as base but one field: copied, not kept.
    for (const k of ['s', 'm', 'x', 'h', 'r'] as const) {
      const e = { ...base.get('a')!, [k]: k === 'h' ? 'd'.repeat(64) : 7 };
      const t = stageManifest(file, [e], digestOf([e]), base);
      assert.notEqual(t.entries.get('a'), base.get('a'), k);
      assert.deepEqual(JSON.parse(fs.readFileSync(t.tmp, 'utf8')).entries[0], e, k);
      fs.rmSync(t.tmp);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('staged again and again from the last one (its text patched), the file is always what JSON.stringify would write', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mstage-'));
    const file = path.join(dir, 'sync', 'm.json');
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    let cur: ManifestEntry[] = Array.from({ length: 300 }, (_, i) => f(`d${i % 7}/f${i}-é`));
    let base: Map<string, ManifestEntry> | undefined;
    for (let round = 0; round < 60; round++) {
      cur = cur.map((e) => ({ ...e }));
      for (let k = rand(4); k > 0; k--) {
        const i = rand(cur.length);
        const what = rand(5);
        if (what === 0) cur[i].h = rand(2) ? 'b'.repeat(64) : 'c'.repeat(64);
        else if (what === 1) cur[i].m += 1234.5 * (rand(9) + 1); // another length of text
        else if (what === 2) cur[i].s = rand(100000);
        else if (what === 3) cur.splice(i, 0, f(`new${round}-${k}`)); // not aligned: written whole
        else cur[i] = rand(2) ? { ...cur[i], r: 1 } : (({ r: _, ...rest }) => rest)(cur[i]);
      }
      const st = stageManifest(file, cur, digestOf(cur), base);
      assert.equal(fs.readFileSync(st.tmp, 'utf8'), JSON.stringify({ v: 1, entries: cur }), `round ${round}`);
      commitManifest(st);
      base = readManifest(file)!;
      assert.equal(base, st.entries, 'read back from what this process wrote');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
