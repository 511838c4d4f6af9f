// Issue 18 on an ssh pool (real sshd test hosts): a host whose container runtime is missing,
// or installed but unusable by the pool's user, fails the launch with a message naming the
// host and what to install; the row stays with the error and down clears it.
import assert from 'node:assert/strict';
import { down, launch, status } from '../../../src/core/ops';
import { writeTask } from '../ops/helpers';
import { sshFixture, type SshFixture } from '../ops/sshFixture';
import type { TestOps } from '../ops/helpers';
import { skipOrFailWithout } from '../../support/ci';
import { podmanProblem } from '../../support/containers/testImage';

describe('containers on an ssh pool', function () {
  this.timeout(180_000);
  let fx: SshFixture;
  let ops: TestOps | undefined;
  before(async function () {
    this.timeout(120_000);
    const problem = podmanProblem();
    if (problem) skipOrFailWithout(this, 'container tests', problem);
    try {
      fx = await sshFixture(1);
    } catch (e) {
      skipOrFailWithout(this, 'sshd test hosts', (e as Error).message);
    }
  });
  after(async () => fx?.env.stop());
  afterEach(async () => {
    await fx.cleanup(ops);
    ops = undefined;
  });
  const host = () => fx.env.hosts[0];
  const task = () => writeTask(ops!.workspaceRoot, 't.yaml', 'resources: {cloud: ssh, image_id: "docker:localhost/any:1"}\nrun: echo hi\n');

  it('no runtime on the host: names the host and the package to install', async () => {
    ops = await fx.ops('known');
    ops.containerRuntimes = ['skydeck-no-such-runtime'];
    const h = host();
    await assert.rejects(launch(ops, { taskFile: task(), cluster: 'c' }), (e: Error) => {
      assert.match(e.message, new RegExp(`launch of c: ssh ${h.user}@${h.address.replace(/\./g, '\\.')}:${h.port}: no container runtime \\(skydeck-no-such-runtime\\) on `));
      assert.match(e.message, /apt-get install -y podman/);
      return true;
    });
    const row = (await status(ops))[0].cluster;
    assert.match(String(row.last_error), /no container runtime/);
    assert.equal((await down(ops, 'c', { graceSeconds: 1 })).cleaned, true, 'a never-started container cluster downs cleanly');
  });

  it('podman there but unusable by the pool user (its storage cannot start): says so, not "pull failed"', async () => {
    // With uidmap and subordinate ids the pool user's rootless podman works here; a storage
    // driver that does not exist makes `podman info` fail for this user only, as a broken
    // setup would.
    const conf = '.config/containers/storage.conf';
    await host().exec(`mkdir -p ~/.config/containers && printf '[storage]\\ndriver = "skydeck-no-such-driver"\\n' > ~/${conf}`);
    try {
      assert.notEqual((await host().exec('podman info')).code, 0, 'podman info fails for the user now');
      ops = await fx.ops('known');
      await assert.rejects(launch(ops, { taskFile: task(), cluster: 'c' }), (e: Error) => {
        assert.match(e.message, /: podman on \S+ cannot run containers:\n[\s\S]*skydeck-no-such-driver/);
        assert.match(e.message, /rootless podman needs the uidmap package/);
        assert.doesNotMatch(e.message, /could not pull/);
        return true;
      });
    } finally {
      await host().exec(`rm -f ~/${conf}`);
    }
  });
});
