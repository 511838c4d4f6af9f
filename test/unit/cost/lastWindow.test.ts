// "Closing the last window with billing clusters and no autostop": which clusters count, when
// the window that became the last warns, and the note the last window to close leaves, taken once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  becameLastWithBilling, clusterSetKey, lastCloseMessage, lastClosePath, lastWindowMessage, recordLastClose, takeLastClose, unguardedClusters,
  type IndexedCluster, type LastClose, type WorkspaceIndex,
} from '../../../src/core/cost';

const home = () => fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-lastclose-'));
const c = (name: string, over: Partial<IndexedCluster> = {}): IndexedCluster =>
  ({ name, uid: randomUUID(), provider: 'aws', region: 'us-east-1', status: 'UP', usdPerHour: 1, autostopMinutes: null, ...over });
const ws = (folder: string, clusters: IndexedCluster[]): WorkspaceIndex => ({ version: 1, workspaceId: 'aa', folder, updatedAt: 0, clusters });

describe('cost: the last window', () => {
  it('counts cloud clusters UP or INIT with no autostop, from every folder', () => {
    const set = unguardedClusters([
      ws('/w1', [c('a', { usdPerHour: 1.5 }), c('stopped', { status: 'STOPPED' }), c('guarded', { autostopMinutes: 30 }), c('mine', { provider: 'local' })]),
      ws('/w2', [c('b', { status: 'INIT', usdPerHour: undefined }), c('ssh', { provider: 'ssh' })]),
    ]);
    assert.deepEqual(set.map((x) => [x.name, x.folder, x.usdPerHour]), [['a', '/w1', 1.5], ['b', '/w2', undefined]]);
    assert.equal(lastWindowMessage(set), 'This is the last Skydeck window: clusters a, b bill $1.50/h (+1 of unknown price) with no autostop, and keep billing after it closes.');
  });

  it('warns only on the look where the others went from some to none, with something billing, unless that set was silenced', () => {
    const set = unguardedClusters([ws('/w', [c('a')])]);
    const none = new Set<string>();
    assert.equal(becameLastWithBilling(1, 0, set, none), true);
    assert.equal(becameLastWithBilling(2, 0, set, none), true);
    assert.equal(becameLastWithBilling(0, 0, set, none), false, 'alone from the start (or already warned): no transition');
    assert.equal(becameLastWithBilling(2, 1, set, none), false, 'another window still open');
    assert.equal(becameLastWithBilling(1, 0, [], none), false, 'nothing bills unguarded');
    assert.equal(becameLastWithBilling(1, 0, set, new Set([clusterSetKey(set)])), false, 'silenced');
  });

  it('the set key ignores order and changes when a cluster joins', () => {
    const [a, b, d] = [{ uid: randomUUID() }, { uid: randomUUID() }, { uid: randomUUID() }];
    assert.equal(clusterSetKey([a, b]), clusterSetKey([b, a]));
    assert.notEqual(clusterSetKey([a, b]), clusterSetKey([a, b, d]));
    assert.match(clusterSetKey([a]), /^[0-9a-f]{32}$/);
  });

  it('the note of the last close is taken once, then it is gone', () => {
    const h = home();
    const rec: LastClose = { version: 1, at: Date.UTC(2026, 11, 2, 9, 30), clusters: [{ name: 'x', folder: '/w', usdPerHour: 0.17 }, { name: 'y', folder: '/v', usdPerHour: 0.34 }] };
    recordLastClose(rec, h);
    assert.deepEqual(takeLastClose(h), rec);
    assert.equal(takeLastClose(h), undefined);
    assert.deepEqual(fs.readdirSync(h), [], 'no claimed copy left behind');
    assert.equal(lastCloseMessage(rec, (ms) => new Date(ms).toISOString()),
      'When the last Skydeck window closed at 2026-12-02T09:30:00.000Z, clusters x, y were billing $0.51/h with no autostop.');
    assert.equal(lastCloseMessage({ ...rec, clusters: [rec.clusters[0]] }, () => 'T'), 'When the last Skydeck window closed at T, cluster x was billing $0.17/h with no autostop.');
    const many = { ...rec, clusters: Array.from({ length: 8 }, (_, i) => ({ name: `c${i}`, folder: '/w', usdPerHour: 1 })) };
    assert.match(lastCloseMessage(many, () => 'T'), /clusters c0, c1, c2, c3, c4 and 3 more were billing \$8\.00\/h/);
  });

  it('a forged or broken note is refused (said, never shown) and removed', () => {
    const h = home();
    const cases: [unknown, string][] = [
      [{ version: 1, at: 1, clusters: [{ name: 'x\n[link](command:evil)', folder: '/w' }] }, 'bad cluster name'],
      [{ version: 1, at: 1, clusters: [{ name: 'x', folder: 'relative' }] }, 'bad folder'],
      [{ version: 1, at: 1, clusters: [{ name: 'x', folder: '/w\u2028' }] }, 'bad folder'],
      [{ version: 1, at: 1, clusters: [{ name: 'x', folder: '/w', usdPerHour: -1 }] }, 'bad price'],
      [{ version: 1, at: 1, clusters: [] }, 'bad clusters'],
      [{ version: 2, at: 1, clusters: [] }, 'unknown version'],
      [{ version: 1, at: 'soon', clusters: [] }, 'bad time'],
    ];
    for (const [rec, why] of cases) {
      fs.writeFileSync(lastClosePath(h), JSON.stringify(rec));
      assert.equal(takeLastClose(h), why, JSON.stringify(rec));
      assert.deepEqual(fs.readdirSync(h), []);
    }
    fs.writeFileSync(lastClosePath(h), 'x'.repeat(300 << 10));
    assert.equal(takeLastClose(h), 'not a small regular file');
    fs.symlinkSync('/etc/passwd', lastClosePath(h));
    assert.equal(takeLastClose(h), 'not a small regular file');
    assert.ok(fs.existsSync('/etc/passwd'), 'the link, not its target, was removed');
    fs.mkdirSync(lastClosePath(h));
    assert.equal(takeLastClose(h), 'not a small regular file', 'a directory under the name is refused, not thrown on');
    assert.equal(takeLastClose(h), undefined);
    for (const n of fs.readdirSync(h)) fs.rmdirSync(path.join(h, n));
    assert.deepEqual(fs.readdirSync(h), []);
  });
});
