import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StateStore } from '../../../src/core/state';

describe('state writes that queue up together (group commit)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-gc-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('each resolves after a save that holds it; one that throws is rolled back alone', async () => {
    const file = path.join(dir, 'state.db');
    const s = await StateStore.open(file);
    const put = (k: string) => s.write((db) => db.run('INSERT INTO meta (key, value) VALUES (?, ?)', [k, 'v']));
    const writes = [put('a'), put('b'), s.write((db) => {
      db.run("INSERT INTO meta (key, value) VALUES ('half', 'v')");
      throw new Error('refused half-way');
    }), put('c'), put('a')];
    const settled = await Promise.allSettled(writes);
    assert.deepEqual(settled.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected']);
    assert.match(String((settled[4] as PromiseRejectedResult).reason), /UNIQUE/);
    // What resolved is on disk: another store object opened on the file sees it.
    const other = await StateStore.open(file);
    const keys = await other.read((db) => db.exec("SELECT key FROM meta WHERE key IN ('a','b','c','half') ORDER BY key")[0].values.flat());
    assert.deepEqual(keys, ['a', 'b', 'c']);
    other.close();
    s.close();
  });
});
