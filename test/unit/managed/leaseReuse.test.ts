// A controller that died leaves its pid in the lease; pids are reused (pid_max is often 32768,
// and a CI run wraps it). Whatever took the pid must not be taken for the controller: not by
// `leaseHolder`, not by a lock's staleness check, and never signalled by stopLocalController
// (which SIGTERMed it before: an unrelated process died "at birth").
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stopLocalController } from '../../../src/cli/controllerHome';
import { leaseHolder, ManagedController, storeFileOf } from '../../../src/core/managed';
import { FileLock } from '../../../src/core/state/fileLock';

/** /proc/PID/stat field 22, read here (not through the code under test). */
function processStart(pid: number): string {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

describe('managed: a lease naming a reused pid', () => {
  let root: string;
  let other: ChildProcess;
  beforeEach(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-lease-'));
    other = spawn('sleep', ['30'], { stdio: 'ignore' });
    await new Promise((r) => other.once('spawn', r));
  });
  afterEach(() => {
    other.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  });

  const lease = (start: string | undefined) => {
    const file = ManagedController.leaseFileOf(storeFileOf(root));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ pid: other.pid, host: os.hostname(), since: Date.now(), ...(start ? { start } : {}) }));
    return file;
  };

  it('another start time: no holder, the lock is stale, and stop signals nothing', async () => {
    const real = processStart(other.pid!);
    assert.ok(real, 'the start time is readable here');
    const file = lease(String(Number(real) - 1));
    assert.equal(leaseHolder(storeFileOf(root)), undefined);
    assert.equal(await stopLocalController(root), undefined);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(other.exitCode, null, 'not signalled');
    assert.equal(other.signalCode, null, 'not signalled');
    const lock = new FileLock(file, { timeoutMs: 2000 });
    await lock.acquire(); // a dead owner's lock is taken over
    lock.release();
  });

  it('the recorded start time: it is the holder (and an older lease without one still counts)', () => {
    lease(processStart(other.pid!));
    assert.equal(leaseHolder(storeFileOf(root)), other.pid);
    lease(undefined);
    assert.equal(leaseHolder(storeFileOf(root)), other.pid);
  });
});
