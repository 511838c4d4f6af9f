import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { getJob, listJobs, listManagedEvents, ManagedMoveError, ManagedStore, moveJob, requestCancel } from '../../../src/core/managed';
import { insertJob } from '../../../src/core/managed/jobRows';
import { thisCreator } from '../../../src/core/state';

describe('managed jobs store', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-mstore-'));
    file = path.join(dir, 'managed.db');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const add = (s: ManagedStore, name = 'train') => s.write((db) => insertJob(db, { name, tasks: ['run: echo hi\n'], envs: { A: '1' }, now: 1000, creator: thisCreator() }));

  it('keeps jobs and their status history across reopen, and refuses a backward move', async () => {
    let s = await ManagedStore.open(file);
    const id = await add(s);
    await s.write((db) => moveJob(db, id, 'STARTING', 'launching', 2000, { clusterName: 'train-mj1-1', launches: 1 }));
    await s.write((db) => moveJob(db, id, 'RUNNING', 'launched', 3000, { clusterUid: '0b6f2c1e-1111-4a2b-8c3d-123456789abc', agentJobId: 1, region: 'r1' }));
    await assert.rejects(s.write((db) => moveJob(db, id, 'PENDING', 'no', 4000)), ManagedMoveError);
    await assert.rejects(s.write((db) => moveJob(db, id, 'STARTING', 'same task again', 4000)), /only starts the next task/);
    s.close();
    s = await ManagedStore.open(file);
    const j = (await s.read((db) => getJob(db, id)))!;
    assert.deepEqual([j.status, j.clusterName, j.agentJobId, j.region, j.envs], ['RUNNING', 'train-mj1-1', 1, 'r1', { A: '1' }]);
    assert.deepEqual((await s.read((db) => listManagedEvents(db, id))).map((e) => `${e.from}>${e.to}:${e.reason}`), ['null>PENDING:submitted', 'PENDING>STARTING:launching', 'STARTING>RUNNING:launched']);
    assert.equal(await s.write((db) => requestCancel(db, id, 5000)), true);
    await s.write((db) => moveJob(db, id, 'CANCELLING', 'cancel', 5000));
    await s.write((db) => moveJob(db, id, 'CANCELLED', 'done', 6000));
    assert.equal(await s.write((db) => requestCancel(db, id, 7000)), false);
    s.close();
  });

  it('refuses a row it did not write (hostile cluster name, bad uid, bad status) and acts on the others', async () => {
    const s = await ManagedStore.open(file);
    const good = await add(s, 'good');
    const bad = await add(s, 'bad');
    await s.write((db) => db.run("UPDATE managed_jobs SET cluster_name = '../../etc', cluster_uid = 'x' WHERE id = ?", [bad]));
    const third = await add(s, 'third');
    await s.write((db) => db.run("UPDATE managed_jobs SET status = 'DONE', tasks = '[1]' WHERE id = ?", [third]));
    const l = await s.read((db) => listJobs(db));
    assert.deepEqual(l.jobs.map((j) => j.id), [good]);
    assert.deepEqual(l.refused.map((r) => r.id), [bad, third]);
    assert.match(l.refused[0].problem, /cluster_name/);
    assert.match(l.refused[1].problem, /status "DONE"/);
    s.close();
  });

  it('moves a damaged image aside with a notice and starts fresh', async () => {
    fs.writeFileSync(file, 'SQLite format 3\u0000' + 'garbage'.repeat(200));
    const s = await ManagedStore.open(file);
    assert.equal(s.notices.length, 1);
    assert.match(s.notices[0].message, /was damaged/);
    assert.ok(fs.existsSync(s.notices[0].movedTo));
    assert.deepEqual((await s.read((db) => listJobs(db))).jobs, []);
    s.close();
  });

  it('two store objects on one file see each other\'s writes (the CLI submits, the controller reads)', async () => {
    const a = await ManagedStore.open(file);
    const b = await ManagedStore.open(file);
    const id = await add(a);
    assert.equal((await b.read((db) => getJob(db, id)))?.name, 'train');
    a.close();
    b.close();
  });

  it('another process saving while this one reads and writes loses no job of either (a reload is stamped with the bytes it read)', async function () {
    this.timeout(300_000);
    const a = await ManagedStore.open(file);
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'storeWriterChild.ts'), file, '60'], { stdio: ['ignore', 'ignore', 'inherit'] });
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    // Reads reload whenever the child saved; each of our writes lands on whatever they loaded.
    const mine = 30;
    for (let i = 0; i < mine; i++) {
      await Promise.all([a.read((db) => listJobs(db)), add(a, `parent${i}`), a.read((db) => listJobs(db))]);
      await new Promise((r) => setTimeout(r, 20)); // room for the child to take the lock
    }
    assert.equal(await exited, 0);
    const names = (await a.read((db) => listJobs(db))).jobs.map((j) => j.name);
    assert.equal(names.filter((n) => n.startsWith('child')).length, 60, 'every job the other process wrote is kept');
    assert.equal(names.filter((n) => n.startsWith('parent')).length, mine, 'every job this process wrote is kept');
    a.close();
  });
});
