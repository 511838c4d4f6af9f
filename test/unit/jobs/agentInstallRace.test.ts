import assert from 'node:assert/strict';
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
      assert.ok(!fs.existsSync(path.join(dir, '.install.lock')), 'the lock is released');
    }
  });

  it('a lock left by an installer that died (its pid gone, or no pid written) is taken over', async () => {
    const t = createLocalTransport();
    for (const pid of ['2147483646', '']) {
      const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-install-')), 'b');
      fs.mkdirSync(path.join(dir, '.install.lock'), { recursive: true });
      if (pid) fs.writeFileSync(path.join(dir, '.install.lock', 'pid'), `${pid}\n`);
      const loc = await ensureAgent(t, dir);
      assert.equal(loc.uploaded, true);
      assert.equal((await ensureAgent(t, dir)).uploaded, false);
      assert.ok(!fs.existsSync(path.join(dir, '.install.lock')));
    }
  });
});
