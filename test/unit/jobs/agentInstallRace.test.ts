import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureAgent } from '../../../src/core/jobs/bootstrap';
import { agentHash, agentSourceDir } from '../../../src/core/jobs/agentBundle';
import { createLocalTransport } from '../../../src/core/transport/localTransport';

// Several Skydecks installing the agent into one base at once: two launches of one local
// cluster, or two windows connecting to one ssh host (they share ~/.skydeck). Each must end
// with the agent installed, none may remove what another is unpacking or running.

describe('agent install: concurrent installers on one base', function () {
  this.timeout(120_000);
  it('six installs at once all succeed, leave one verified version and no half-installs, and a later probe uploads nothing', async () => {
    const base = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-install-')), 'b');
    const t = createLocalTransport();
    for (let round = 0; round < 3; round++) {
      const dir = `${base}-${round}`;
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => ensureAgent(t, dir)));
      const failed = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
      assert.deepEqual(failed, [], `round ${round}`);
      const hash = agentHash(agentSourceDir());
      assert.equal(fs.readlinkSync(path.join(dir, 'agent')), `agent-${hash}`);
      assert.deepEqual(fs.readdirSync(dir).filter((n) => n.startsWith('agent')).sort(), ['agent', `agent-${hash}`]);
      assert.equal((await ensureAgent(t, dir)).uploaded, false, 'what they left verifies');
      assert.ok(!isLocked(path.join(dir, '.install.flock')), 'the lock is released');
    }
  });

  it('an install waits for the lock while another installer holds it, and takes it the moment that one is killed with -9', async () => {
    const t = createLocalTransport();
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-install-')), 'b');
    fs.mkdirSync(dir, { recursive: true });
    const lock = path.join(dir, '.install.flock');
    const holder = holdLock(lock);
    try {
      await waitFor(() => isLocked(lock));
      let done = false;
      const install = ensureAgent(t, dir).finally(() => { done = true; });
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(done, false, 'the install waited for the held lock');
      process.kill(holder.pid!, 'SIGKILL');
      const loc = await install;
      assert.equal(loc.uploaded, true);
      assert.equal((await ensureAgent(t, dir)).uploaded, false);
      assert.ok(!isLocked(lock));
    } finally {
      if (holder.exitCode === null && holder.signalCode === null) holder.kill('SIGKILL');
    }
  });

  it('a lock path planted as a symlink is refused, and nothing is written through it', async () => {
    const t = createLocalTransport();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-install-'));
    const dir = path.join(root, 'b');
    fs.mkdirSync(dir);
    const target = path.join(root, 'elsewhere');
    fs.symlinkSync(target, path.join(dir, '.install.flock'));
    await assert.rejects(ensureAgent(t, dir), /installing the agent on local failed/);
    assert.ok(!fs.existsSync(target), 'no file was made through the link');
  });
});

// A child python holding an flock on `p` until killed.
function holdLock(p: string): ChildProcess {
  return spawn('python3', ['-c', 'import fcntl,os,sys,time\nfd=os.open(sys.argv[1],os.O_RDWR|os.O_CREAT,0o600)\nfcntl.flock(fd,fcntl.LOCK_EX)\ntime.sleep(120)', p], { stdio: 'ignore' });
}

function isLocked(p: string): boolean {
  if (!fs.existsSync(p)) return false;
  const r = spawnSync('python3', ['-c', 'import fcntl,os,sys\nfd=os.open(sys.argv[1],os.O_RDWR)\ntry:\n fcntl.flock(fd,fcntl.LOCK_EX|fcntl.LOCK_NB)\nexcept BlockingIOError:\n sys.exit(3)', p]);
  if (r.status !== 0 && r.status !== 3) throw new Error(`lock probe failed: ${r.stderr}`);
  return r.status === 3;
}

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(ok(), 'condition not met within 5 s');
}
