// A controller's store sealed against new jobs while its cluster is stopped or torn down
// (src/core/managed/seal.ts): the guard's check and seal are one store write, and a submit that
// races it is either seen by the check or refused, never recorded on a store about to go.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalManagedClient, ManagedController, ManagedStore } from '../../../src/core/managed';
import { SEAL_MS, sealFileOf, sealInForce } from '../../../src/core/managed/seal';
import { makeCtx } from './helpers';

const noController = () => ({ where: 'test', started: false, detail: '' });
const TASK = 'resources: {cloud: aws}\nrun: echo hi\n';

describe('managed jobs: a store sealed while its controller cluster stops or goes', () => {
  let home: string;
  let store: string;
  const open = () => LocalManagedClient.open(store, noController, Date.now, home);
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-seal-'));
    store = ManagedStore.fileIn(home);
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it('is not sealed while a job is unfinished; sealed, it refuses a submit with the reason; unsealed, it takes jobs again', async () => {
    const c = await open();
    try {
      const { id } = await c.submit({ tasks: [TASK] });
      assert.deepEqual(await c.seal('stop'), [id]);
      assert.equal(sealInForce(store, Date.now()), undefined, 'a busy store is not sealed');
      await c.cancel([id]); // no controller runs here: the job is still unfinished (CANCELLING has its work left)
      const forced = await c.seal('down', true);
      assert.deepEqual(forced, [id], '--purge seals anyway, naming what it leaves');
      await assert.rejects(c.submit({ tasks: [TASK] }), /the managed-jobs controller is being torn down, so it takes no new job; nothing was submitted/);
      assert.equal((await c.list()).jobs.length, 1);
      await c.unseal();
      assert.ok((await c.submit({ tasks: [TASK] })).id > id);
    } finally {
      await c.close();
    }
  });

  it('a seal of another boot, expired, from the future or damaged is none', async () => {
    const c = await open();
    try {
      assert.deepEqual(await c.seal('stop'), []);
      const now = Date.now();
      assert.equal(sealInForce(store, now), 'stop');
      const rec = JSON.parse(fs.readFileSync(sealFileOf(store), 'utf8')) as { boot: string; until: number };
      assert.equal(sealInForce(store, now + SEAL_MS + 1), undefined, 'expired');
      const write = (v: unknown) => fs.writeFileSync(sealFileOf(store), typeof v === 'string' ? v : JSON.stringify(v));
      write({ ...rec, boot: 'another-boot' });
      assert.equal(sealInForce(store, now), undefined, 'a VM that stopped and started again has rebooted');
      write({ ...rec, until: now + 10 * SEAL_MS });
      assert.equal(sealInForce(store, now), undefined, 'a seal longer than any stop is not believed');
      for (const bad of ['not json', '[]', { ...rec, why: 'other' }, { ...rec, until: 'soon' }]) {
        write(bad);
        assert.equal(sealInForce(store, now), undefined, JSON.stringify(bad));
      }
      assert.ok((await c.submit({ tasks: [TASK] })).id > 0);
    } finally {
      await c.close();
    }
  });

  it('a seal racing a submit from another process\'s store object: never both (sealed with no job seen, and the job recorded)', async () => {
    for (let round = 0; round < 12; round++) {
      fs.rmSync(home, { recursive: true, force: true });
      fs.mkdirSync(home);
      const guard = await open();
      const user = await open();
      try {
        const [busy, sub] = await Promise.all([guard.seal('down'), user.submit({ tasks: [TASK] }).then((r) => r.id, (e: Error) => e)]);
        if (sub instanceof Error) {
          assert.match(sub.message, /being torn down/);
          assert.deepEqual(busy, []);
        } else {
          assert.deepEqual(busy, [sub], `round ${round}: the seal saw the job it let in`);
          assert.equal(sealInForce(store, Date.now()), undefined);
        }
      } finally {
        await guard.close();
        await user.close();
      }
    }
  });

  it('the controller\'s own submit is refused too', async () => {
    const c = await open();
    const { ctx } = await makeCtx(home);
    const ctl = await ManagedController.open(ctx, { storeFile: store });
    try {
      assert.deepEqual(await c.seal('stop'), []);
      await assert.rejects(ctl.submit({ tasks: [TASK] }), /being stopped/);
    } finally {
      await ctl.stop();
      await c.close();
      ctx.store.close();
    }
  });
});
