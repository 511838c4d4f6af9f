// The test hosts' Linux users are added and removed while another run (CI's other lane) may hold
// /etc/passwd's lock: useradd/userdel then fail at once, so the harness tries again.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createUser, removeUser } from '../../hosts/users';
import { run } from '../../hosts/system';
import { skipOrFailWithout } from '../../support/ci';

const LOCK = '/etc/passwd.lock';

/** Takes the lock as shadow's tools do (a file naming a live pid), waiting for another holder. */
async function holdPasswdLock(): Promise<void> {
  for (;;) {
    try {
      fs.writeFileSync(LOCK, `${process.pid}\0`, { flag: 'wx' });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('test host users while /etc/passwd is locked by another process', function () {
  this.timeout(60_000);
  before(function () {
    if (process.getuid?.() !== 0) skipOrFailWithout(this, 'test host users', 'root (useradd)');
  });

  it('useradd and userdel wait for the lock instead of failing', async () => {
    const name = `sdk-lock-${process.pid}`;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-lock-home-'));
    await holdPasswdLock();
    let held = true;
    try {
      // What the harness would have done before: fail while the lock is held.
      const plain = await run('useradd', ['--no-create-home', '--user-group', `${name}x`]);
      assert.notEqual(plain.code, 0, 'useradd failed under the lock (else this test proves nothing)');
      assert.match(plain.stderr, /cannot lock \/etc\/passwd/);
      let added = false;
      const adding = createUser(name, path.join(home, 'h')).then((u) => ((added = true), u));
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal(added, false, 'still waiting while the lock is held');
      fs.unlinkSync(LOCK);
      held = false;
      const user = await adding;
      assert.equal((await run('id', ['-u', name])).stdout.trim(), String(user.uid));

      await holdPasswdLock();
      held = true;
      const removing = removeUser(user);
      setTimeout(() => { fs.unlinkSync(LOCK); held = false; }, 700);
      await removing;
      assert.notEqual((await run('id', ['-u', name])).code, 0, 'the user is gone');
    } finally {
      if (held) fs.rmSync(LOCK, { force: true });
      await run('userdel', ['--remove', '--force', name]);
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
