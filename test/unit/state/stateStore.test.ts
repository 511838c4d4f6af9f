import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import {
  appendEvent, getCluster, listClusters, listEvents, putCluster, SCHEMA_VERSION, StateStore, StateVersionError,
} from '../../../src/core/state';
import type { ClusterRecord } from '../../../src/core/state';
import { bundleWorker } from '../../support/bundleWorker';

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-state-'));
}

function cluster(name: string): ClusterRecord {
  return {
    name, uid: randomUUID(), provider: 'fake', region: null, zone: null, status: 'INIT', resources: null,
    num_nodes: 1, head_address: null, ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null,
    launched_at: 1, updated_at: 1, last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
    created_by_user: null, created_by_machine: null, account: null,
  };
}

/** Opens a state file independently of the store and returns meta 'n', its job rows and integrity. */
let sqlReady: ReturnType<typeof initSqlJs> | undefined;
async function inspect(file: string): Promise<{ n: number; rows: number; maxId: number; check: string }> {
  const SQL = await (sqlReady ??= initSqlJs());
  const db = new SQL.Database(fs.readFileSync(file));
  try {
    const q = (sql: string) => db.exec(sql)[0]?.values[0][0];
    return {
      n: Number(q("SELECT value FROM meta WHERE key='n'") ?? 0),
      rows: Number(q('SELECT count(*) FROM jobs')),
      maxId: Number(q('SELECT coalesce(max(job_id),0) FROM jobs')),
      check: String(q('PRAGMA integrity_check')),
    };
  } finally {
    db.close();
  }
}

describe('state store', function () {
  this.timeout(120_000);
  let worker: string;
  const children: ChildProcess[] = [];
  before(async () => {
    worker = await bundleWorker(path.join(__dirname, '../../workers/stateWorker.ts'));
  });
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  it('persists clusters and events across reopen, and keeps itself out of git', async () => {
    const ws = tmpDir();
    const train = cluster('train');
    const a = await StateStore.openWorkspace(ws);
    await a.write((db) => {
      putCluster(db, train);
      appendEvent(db, { cluster: 'train', kind: 'launch', message: 'intent written' });
    });
    a.close();
    assert.equal(fs.readFileSync(path.join(ws, '.skydeck', '.gitignore'), 'utf8').trim().split('\n').pop(), '*');
    const b = await StateStore.openWorkspace(ws);
    const [names, events] = await b.read((db) => [listClusters(db).map((c) => c.name), listEvents(db, 'train')]);
    assert.deepEqual(names, ['train']);
    assert.equal(events[0].message, 'intent written');
    assert.equal((await b.read((db) => getCluster(db, 'train')))?.uid, train.uid);
    b.close();
  });

  it('rolls back a transaction that throws and saves nothing', async () => {
    const file = path.join(tmpDir(), 'state.db');
    const s = await StateStore.open(file);
    await s.write((db) => putCluster(db, cluster('keep')));
    const before = fs.readFileSync(file);
    await assert.rejects(s.write((db) => { putCluster(db, cluster('lost')); throw new Error('boom'); }), /boom/);
    assert.deepEqual(fs.readFileSync(file), before);
    assert.deepEqual(await s.read((db) => listClusters(db).map((c) => c.name)), ['keep']);
    s.close();
  });

  it('sees what another store saved (reload before read and before write)', async () => {
    const file = path.join(tmpDir(), 'state.db');
    const a = await StateStore.open(file);
    const b = await StateStore.open(file);
    await a.write((db) => putCluster(db, cluster('from-a')));
    await b.write((db) => putCluster(db, cluster('from-b')));
    assert.deepEqual(await a.read((db) => listClusters(db).map((c) => c.name).sort()), ['from-a', 'from-b']);
    a.close();
    b.close();
  });

  it('refuses a file from a newer schema with a clear message and leaves it untouched', async () => {
    const file = path.join(tmpDir(), 'state.db');
    const SQL = await initSqlJs();
    const db = new SQL.Database();
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 3}`);
    fs.writeFileSync(file, db.export());
    const bytes = fs.readFileSync(file);
    await assert.rejects(StateStore.open(file), (e: unknown) => {
      assert.ok(e instanceof StateVersionError);
      assert.match(e.message, new RegExp(`schema v${SCHEMA_VERSION + 3}.*up to v${SCHEMA_VERSION}.*update`, 's'));
      return true;
    });
    assert.deepEqual(fs.readFileSync(file), bytes);
  });

  for (const [what, damage] of [
    ['garbage', (f: string) => fs.writeFileSync(f, 'this is not a database at all, just text\n'.repeat(50))],
    ['truncated', (f: string) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2))],
    ['empty', (f: string) => fs.writeFileSync(f, '')],
    ['page-damaged', (f: string) => {
      const b = fs.readFileSync(f);
      b.fill(0x5a, b.length - 3000, b.length - 100);
      fs.writeFileSync(f, b);
    }],
  ] as const) {
    it(`moves a ${what} file aside, says where, and starts fresh`, async () => {
      const dir = tmpDir();
      const file = path.join(dir, 'state.db');
      const s = await StateStore.open(file);
      await s.write((db) => { for (let i = 0; i < 30; i++) putCluster(db, { ...cluster(`c${i}`), last_error: 'x'.repeat(300) }); });
      s.close();
      damage(file);
      const damaged = fs.readFileSync(file);
      const t = await StateStore.open(file);
      assert.equal(t.notices.length, 1);
      const n = t.notices[0];
      assert.equal(n.kind, 'corrupt-moved');
      assert.match(path.basename(n.movedTo), /^state\.db\.corrupt-\d{4}-\d\d-\d\dT/);
      assert.deepEqual(fs.readFileSync(n.movedTo), damaged, 'the damaged bytes are kept as they were');
      assert.ok(n.message.includes(file) && n.message.includes(n.movedTo), n.message);
      assert.deepEqual(await t.read((db) => listClusters(db)), []);
      t.close();
    });
  }

  it('takes over a lock left by a dead process', async () => {
    const file = path.join(tmpDir(), 'state.db');
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: dead.pid, host: os.hostname(), since: Date.now() }));
    const s = await StateStore.open(file, { timeoutMs: 3000 });
    await s.write((db) => putCluster(db, cluster('after-takeover')));
    assert.equal(fs.existsSync(`${file}.lock`), false);
    s.close();
  });

  it('times out on a lock held by a live process, naming the holder', async () => {
    const file = path.join(tmpDir(), 'state.db');
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, host: os.hostname(), since: Date.now() }));
    await assert.rejects(StateStore.open(file, { timeoutMs: 200 }), new RegExp(`held by pid ${process.pid}`));
  });

  it('two processes committing 500 increments each end at exactly 1000', async () => {
    const file = path.join(tmpDir(), 'state.db');
    (await StateStore.open(file)).close();
    const run = () => new Promise<number>((resolve) => {
      const c = spawn(process.execPath, [worker, 'count', file, '500'], { stdio: ['ignore', 'ignore', 'inherit'] });
      children.push(c);
      c.on('exit', (code) => resolve(code ?? -1));
    });
    assert.deepEqual(await Promise.all([run(), run()]), [0, 0]);
    const SQL = await initSqlJs();
    const db = new SQL.Database(fs.readFileSync(file));
    assert.equal(db.exec("SELECT value FROM meta WHERE key='count'")[0].values[0][0], '1000');
    db.close();
  });

  // Each kill costs a child start-up (~1 s): the default suite runs 60, STATE_KILLS=200 the full soak.
  const KILLS = Math.max(2, Number(process.env.STATE_KILLS ?? 60));
  it(`survives ${KILLS} SIGKILLs mid-save: always the previous or the next committed state`, async function () {
    this.timeout(KILLS * 2_000 + 60_000); // child start-ups are slow on a loaded 2-core machine
    // Two independent lanes, to halve the wall time on two cores.
    const lanes = await Promise.all([killLane(Math.ceil(KILLS / 2)), killLane(Math.floor(KILLS / 2))]);
    const commits = lanes.reduce((a, l) => a + l.commits, 0);
    // The kills must really land while the writer is busy, or the test proves nothing.
    assert.ok(commits > KILLS, `writers made progress (${commits})`);
    console.log(`      (${KILLS} kills, ${commits} commits, ${lanes[0].unreported + lanes[1].unreported} kills between save and report)`);
  });

  async function killLane(kills: number): Promise<{ commits: number; unreported: number }> {
    const file = path.join(tmpDir(), 'state.db');
    let lastSeen = 0;
    let unreported = 0;
    for (let kill = 0; kill < kills; kill++) {
      // Each lives about a second: without V8's optimizing tiers (JS and sql.js's WASM) its
      // start-up costs half the CPU, and it still saves many times before its kill.
      const c = spawn(process.execPath, ['--liftoff-only', '--no-opt', worker, 'stream', file], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(c);
      let reported = lastSeen;
      let buf = '';
      const firstCommit = new Promise<void>((resolve) => {
        c.stdout!.on('data', (d: Buffer) => {
          buf += d.toString();
          const all = [...buf.matchAll(/committed (\d+)\n/g)];
          if (all.length) reported = Number(all[all.length - 1][1]);
          resolve();
        });
      });
      const closed = new Promise((r) => c.on('close', r));
      await firstCommit;
      await new Promise((r) => setTimeout(r, Math.random() * 15));
      c.kill('SIGKILL');
      await closed;
      const got = await inspect(file);
      assert.equal(got.check, 'ok', `kill ${kill}: integrity`);
      assert.ok(got.n === reported || got.n === reported + 1, `kill ${kill}: file has ${got.n}, last reported ${reported}`);
      if (got.n === reported + 1) unreported++;
      assert.equal(got.maxId, got.n, `kill ${kill}: rows match the counter`);
      assert.equal(got.rows, Math.min(got.n, 40));
      lastSeen = got.n;
    }
    return { commits: lastSeen, unreported };
  }
});
