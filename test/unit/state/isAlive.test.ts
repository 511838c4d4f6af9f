// isAlive (state/atomicWrite.ts) decides whether a lease holder or a stopped controller is still
// there: a zombie is not (an init that reaps lazily left the stopped controller "alive").
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { isAlive } from '../../../src/core/state/atomicWrite';

describe('state: isAlive', () => {
  it('a running process is alive; its exited, unreaped child (a zombie) is not; a reaped one is not', async () => {
    // The parent forks a child that exits at once and never waits for it: the child stays a zombie.
    const parent = spawn('/usr/bin/python3', ['-c', 'import os,sys,time\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid,flush=True)\ntime.sleep(30)\n'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const kid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (b) => resolve(String(b)))));
      for (let i = 0; i < 100 && !fs.readFileSync(`/proc/${kid}/stat`, 'latin1').includes(') Z '); i++) await new Promise((r) => setTimeout(r, 20));
      assert.match(fs.readFileSync(`/proc/${kid}/stat`, 'latin1'), /\) Z /, 'the child is a zombie');
      assert.equal(isAlive(parent.pid!), true);
      assert.equal(isAlive(kid), false);
    } finally {
      parent.kill('SIGKILL');
    }
    await new Promise((r) => parent.once('exit', r));
    assert.equal(isAlive(parent.pid!), false);
  });
});
