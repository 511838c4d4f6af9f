import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkedSocketPath, checkPrivateDir, ensurePrivateDir, HolderRefusedError, SOCKET_NAME } from '../../../../src/core/transport/holder/socketDir';

describe('transport/holder: the socket directory is this user\'s alone', () => {
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-holder-dir-')); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('makes a missing directory with mode 0700 and accepts it', () => {
    const dir = path.join(tmp, 'a', 'run');
    ensurePrivateDir(dir);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    checkPrivateDir(dir);
  });

  it('refuses a directory others can open, and does not repair it', () => {
    const dir = path.join(tmp, 'open');
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    assert.throws(() => ensurePrivateDir(dir), (e: Error) => e instanceof HolderRefusedError && /mode 755/.test(e.message));
    assert.equal(fs.statSync(dir).mode & 0o777, 0o755);
    fs.chmodSync(dir, 0o710);
    assert.throws(() => checkPrivateDir(dir), HolderRefusedError);
  });

  it('refuses a symlink, even to a good private directory', () => {
    const real = path.join(tmp, 'real');
    fs.mkdirSync(real, { mode: 0o700 });
    const link = path.join(tmp, 'link');
    fs.symlinkSync(real, link);
    assert.throws(() => ensurePrivateDir(link), (e: Error) => e instanceof HolderRefusedError && /symlink/.test(e.message));
  });

  it('refuses a directory of another owner', function () {
    // Only root can give a directory away; CI and these machines run tests as root.
    if (process.getuid?.() !== 0) {
      console.warn('SKIPPED: "refuses a directory of another owner" needs root to chown a directory; run the tests as root (CI does)');
      this.skip();
    }
    const dir = path.join(tmp, 'theirs');
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chownSync(dir, 65534, 65534);
    assert.throws(() => checkPrivateDir(dir), (e: Error) => e instanceof HolderRefusedError && /belongs to uid 65534/.test(e.message));
  });

  it('refuses a plain file, an open socket mode, a foreign socket and an over-long path in place of the socket', async () => {
    const dir = path.join(tmp, 'd');
    ensurePrivateDir(dir);
    const sock = path.join(dir, SOCKET_NAME);
    fs.writeFileSync(sock, '');
    assert.throws(() => checkedSocketPath(dir), /not a socket/);
    fs.rmSync(sock);
    const server = net.createServer().listen(sock);
    await new Promise((r) => server.once('listening', r));
    try {
      fs.chmodSync(sock, 0o666);
      assert.throws(() => checkedSocketPath(dir), /mode 666/);
      fs.chmodSync(sock, 0o600);
      assert.equal(checkedSocketPath(dir), sock);
      if (process.getuid?.() === 0) {
        fs.lchownSync(sock, 65534, 65534);
        assert.throws(() => checkedSocketPath(dir), /belongs to uid 65534/);
      }
    } finally {
      server.close();
    }
    const deep = path.join(tmp, 'x'.repeat(120));
    ensurePrivateDir(deep);
    assert.throws(() => checkedSocketPath(deep), /too long/);
  });

  it('a missing socket is ENOENT (the CLI then starts a holder), not a refusal', () => {
    const dir = path.join(tmp, 'empty');
    ensurePrivateDir(dir);
    assert.throws(() => checkedSocketPath(dir), (e: NodeJS.ErrnoException) => e.code === 'ENOENT');
  });
});

/** A socket file left behind by a process killed -9 (nothing answers on it). */
export async function staleSocket(sock: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(sock)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((r) => child.stdout.once('data', r));
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  assert.ok(fs.existsSync(sock));
}
