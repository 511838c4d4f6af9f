// Failures are typed, name the mount and the fix, and end in bounded time: missing bucket,
// wrong credentials, an endpoint that refuses or never answers, rclone or fusermount missing,
// /dev/fuse unusable, a non-empty mount point.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  copyFromBucket, mountBucket, StorageError, type NodeMount, type StorageContext, type StorageErrorKind,
} from '../../../src/core/storage';
import { LocalTransport } from '../../../src/core/transport';
import { DUMMY_CREDENTIALS, startMoto, type MotoServer } from '../../support/moto';
import { restrictFuseIn } from '../../support/fuseHost';
import { requireStorageTools, startStorageEnv, type StorageEnv } from './env';

async function expectStorageError(p: Promise<unknown>, kind: StorageErrorKind, label: string): Promise<StorageError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof StorageError, `expected a StorageError, got ${(e as Error).stack}`);
    assert.equal(e.kind, kind, e.message);
    assert.ok(e.message.startsWith(`${label}: `), e.message);
    assert.ok(e.fix.length > 10);
    return e;
  }
  throw new Error(`expected a ${kind} StorageError, but it succeeded`);
}

const s3 = (bucket: string, dst = '~/x', mode: NodeMount['mode'] = 'COPY'): NodeMount => ({ dst, mode, target: { store: 's3', bucket, prefix: '' } });

describe('storage: errors are typed, name the mount, and come in bounded time', function () {
  this.timeout(120_000);
  let env: StorageEnv;
  let strict: MotoServer;
  let silent: net.Server;
  const sockets: net.Socket[] = [];

  before(async function () {
    requireStorageTools(this);
    env = await startStorageEnv();
    // A second moto that checks credentials (none exist in it, so every key is unknown).
    strict = await startMoto({ env: { INITIAL_NO_AUTH_ACTION_COUNT: '0' } });
    // Accepts connections and never says a word.
    silent = net.createServer((s) => { sockets.push(s); });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    await env.s3.createBucket('exists');
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    silent?.close();
    await strict?.stop();
    await env?.teardown();
  });

  it('a missing bucket', async () => {
    const e = await expectStorageError(copyFromBucket(env.context(), s3('no-such-bucket')), 'bucket-missing', '~/x: s3://no-such-bucket');
    assert.match(e.message, /does not exist/);
  });

  it('wrong credentials', async () => {
    const ctx = env.context({ endpoint: strict.url, keys: { accessKeyId: 'AKIDWRONGWRONG', secretAccessKey: 'very-secret-value-123' } });
    const e = await expectStorageError(copyFromBucket(ctx, s3('exists')), 'denied', '~/x: s3://exists');
    assert.doesNotMatch(e.message, /very-secret-value-123/);
  });

  it('an endpoint that refuses connections', async () => {
    const port = await closedPort();
    await expectStorageError(copyFromBucket(env.context({ endpoint: `http://127.0.0.1:${port}` }), s3('exists')), 'unreachable', '~/x: s3://exists');
  });

  it('an endpoint that never answers: the time limit ends it, and no rclone is left running', async () => {
    const port = (silent.address() as net.AddressInfo).port;
    const ctx = env.context({ endpoint: `http://127.0.0.1:${port}`, timeouts: { probeMs: 3000 } });
    await expectStorageError(copyFromBucket(ctx, s3('exists')), 'timeout', '~/x: s3://exists');
    const left = await env.hosts.hosts[0].exec('pgrep -u "$(id -u)" -x rclone');
    assert.equal(left.stdout.trim(), '', 'an rclone process outlived the time limit');
  });

  it('a mount point that is not empty', async () => {
    await env.hosts.hosts[0].exec('mkdir -p ~/full && echo x > ~/full/f');
    await expectStorageError(mountBucket(env.context(), s3('exists', '~/full', 'MOUNT')), 'mountpoint', '~/full: s3://exists');
  });

  it('/dev/fuse that the user may not open', async () => {
    await restrictFuseIn(env.hosts.hosts[0], env.hosts.dir);
    const e = await expectStorageError(mountBucket(env.context(), s3('exists', '~/m', 'MOUNT')), 'fuse-missing', '~/m: s3://exists');
    assert.match(e.message, /\/dev\/fuse/);
  });

  describe('tools missing (on this machine, through the local transport)', () => {
    let tmp: string;
    before(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-storage-')); });
    after(() => { fs.rmSync(tmp, { recursive: true, force: true }); });

    /** A PATH holding only the named programs (links to this machine's). */
    const pathWith = (names: string[]): string => {
      const bin = fs.mkdtempSync(path.join(tmp, 'bin-'));
      for (const n of names) {
        const where = spawnSync('sh', ['-c', `command -v ${n}`], { encoding: 'utf8' }).stdout.trim();
        assert.ok(where, `${n} is not installed here`);
        fs.symlinkSync(where, path.join(bin, n));
      }
      return bin;
    };
    const local = (PATH: string): StorageContext => ({
      transport: new LocalTransport({ env: { HOME: tmp, PATH } }),
      stateBase: path.join(tmp, 'state'),
      access: { credentials: { kind: 'keys', ...DUMMY_CREDENTIALS }, endpoint: env.moto.url },
    });

    it('rclone', async () => {
      const e = await expectStorageError(copyFromBucket(local(pathWith(['mkdir'])), s3('exists', path.join(tmp, 'c'))), 'tool-missing', `${path.join(tmp, 'c')}: s3://exists`);
      assert.match(e.message, /rclone is not installed/);
    });

    it('fusermount', async () => {
      const PATH = pathWith(['rclone', 'mkdir', 'cat', 'tail', 'setsid', 'ln', 'grep']);
      const dst = path.join(tmp, 'm');
      const e = await expectStorageError(mountBucket(local(PATH), s3('exists', dst, 'MOUNT')), 'tool-missing', `${dst}: s3://exists`);
      assert.match(e.message, /fusermount/);
    });
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
