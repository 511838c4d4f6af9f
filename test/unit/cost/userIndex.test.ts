// The per-user index of live clusters: each workspace writes only its own file, atomically;
// every file is checked when read (anyone may write the directory); two writers never tear one.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { indexDir, otherBilling, publishWorkspace, readIndex, skydeckHome, type WorkspaceIndex } from '../../../src/core/cost';

const home = () => fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-index-'));
const entry = (id: string, usd?: number, over: Partial<WorkspaceIndex> = {}): WorkspaceIndex => ({
  version: 1, workspaceId: id, folder: `/tmp/ws-${id}`, updatedAt: Date.now(),
  clusters: [{ name: `c-${id}`, uid: randomUUID(), provider: 'aws', region: 'us-east-1', status: 'UP', ...(usd !== undefined ? { usdPerHour: usd } : {}), autostopMinutes: null }],
  ...over,
});

describe('cost: the per-user index', () => {
  it('SKYDECK_HOME moves it; a relative one is ignored', () => {
    assert.equal(skydeckHome({ SKYDECK_HOME: '/x/y' }), '/x/y');
    assert.equal(skydeckHome({ SKYDECK_HOME: 'rel' }), path.join(os.homedir(), '.skydeck'));
  });

  it('reads every other workspace, not this one; sums what bills and counts unknowns apart', () => {
    const h = home();
    publishWorkspace(entry('aaaa1111', 1.5), h);
    publishWorkspace(entry('bbbb2222', 2.62), h);
    publishWorkspace(entry('cccc3333'), h);
    const r = readIndex('aaaa1111', h);
    assert.deepEqual(r.refused, []);
    assert.deepEqual(r.workspaces.map((w) => w.workspaceId).sort(), ['bbbb2222', 'cccc3333']);
    const b = otherBilling(r.workspaces);
    assert.deepEqual({ ...b, usdPerHour: Math.round(b.usdPerHour * 100) / 100 }, { clusters: 2, folders: 2, usdPerHour: 2.62, unknown: 1 });
    // No cluster left: the workspace's own file goes, nobody else's.
    publishWorkspace({ ...entry('bbbb2222'), clusters: [] }, h);
    assert.deepEqual(readIndex(undefined, h).workspaces.map((w) => w.workspaceId).sort(), ['aaaa1111', 'cccc3333']);
  });

  it('hostile files are refused by name and never used: bad JSON, wrong shapes, lies about their id, links, huge', () => {
    const h = home();
    const d = indexDir(h);
    fs.mkdirSync(d, { recursive: true });
    const bad: Record<string, unknown> = {
      'broken.json': '{"version": 1,',
      'deadbeef.json': { ...entry('deadbeef'), folder: 'relative/path' },
      'feedface.json': { ...entry('feedface'), folder: '/tmp/a\nb' },
      'abcd0001.json': entry('abcd0002'),
      'abcd0003.json': { ...entry('abcd0003'), clusters: [{ ...entry('x').clusters[0], name: '$(touch /tmp/pwn)' }] },
      'abcd0004.json': { ...entry('abcd0004'), clusters: [{ ...entry('x').clusters[0], usdPerHour: -1 }] },
      'abcd0005.json': { ...entry('abcd0005'), clusters: [{ ...entry('x').clusters[0], region: '../../etc' }] },
    };
    for (const [n, v] of Object.entries(bad)) fs.writeFileSync(path.join(d, n), typeof v === 'string' ? v : JSON.stringify(v));
    fs.writeFileSync(path.join(d, 'abcd0006.json'), ' '.repeat(300 << 10));
    fs.symlinkSync('/etc/passwd', path.join(d, 'abcd0007.json'));
    publishWorkspace(entry('abcd0008', 1), h);
    const r = readIndex(undefined, h);
    assert.deepEqual(r.workspaces.map((w) => w.workspaceId), ['abcd0008']);
    assert.equal(r.refused.length, 9, r.refused.join('\n'));
    assert.ok(r.refused.some((x) => x.startsWith('abcd0001.json: its name is not its workspace id')));
    assert.throws(() => publishWorkspace(entry('../../x')), /bad workspace id/);
  });

  it('two processes writing the same workspace entry at once: every read sees a whole file', async function () {
    this.timeout(60_000);
    const h = home();
    const script = path.join(h, 'writer.ts');
    // The real writer (publishWorkspace), in two processes at once.
    const mod = JSON.stringify(path.resolve('src/core/cost/userIndex.ts'));
    fs.writeFileSync(script, `
      import { publishWorkspace } from ${mod};
      const [home, tag] = process.argv.slice(2);
      for (let i = 0; i < 150; i++) {
        publishWorkspace({ version: 1, workspaceId: 'abcd9999', folder: '/tmp/' + tag, updatedAt: i, clusters: Array.from({ length: 200 }, (_, k) => ({ name: 'c' + k, uid: '${randomUUID()}', provider: 'aws', region: 'r', status: 'UP', usdPerHour: 1, autostopMinutes: null })) }, home);
      }`);
    const run = (tag: string) => new Promise<number>((resolve) => fork(script, [h, tag], { execArgv: ['--import', 'tsx'] }).on('exit', (c) => resolve(c ?? -1)));
    const writers = Promise.all([run('one'), run('two')]);
    let reads = 0;
    let done = false;
    void writers.then(() => (done = true));
    while (!done) {
      const r = readIndex(undefined, h);
      assert.deepEqual(r.refused.filter((x) => !x.includes('ENOENT')), [], 'a reader saw a torn file');
      reads++;
      await new Promise((res) => setImmediate(res));
    }
    assert.deepEqual(await writers, [0, 0]);
    assert.ok(reads > 0);
    assert.equal(readIndex(undefined, h).workspaces[0].clusters.length, 200);
  });
});
