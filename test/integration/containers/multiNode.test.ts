// Issue 18, multi-node: one container per node (3 real sshd hosts, each user's rootless podman),
// host networking so ranks reach each other at the nodes' addresses, every rank in its node's
// container with the plain gang's variables; cancel leaves no rank process in any container and
// down leaves no container on any host.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cancel, down, exec, launch, logs, queue, status } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { waitFor, writeTask, type TestOps } from '../ops/helpers';
import { sshFixture, type SshFixture } from '../ops/sshFixture';
import { skipOrFailWithout } from '../../support/ci';
import { podmanProblem, testImageTarball } from '../../support/containers/testImage';
import { freePort } from '../../hosts/system';
import type { TestHost } from '../../hosts';

describe('a multi-node container cluster on 3 sshd hosts (rootless podman)', function () {
  this.timeout(600_000);
  let fx: SshFixture;
  let ops: TestOps | undefined;
  let image = '';
  before(async function () {
    this.timeout(900_000);
    const problem = podmanProblem();
    if (problem) skipOrFailWithout(this, 'container tests', problem);
    try {
      fx = await sshFixture(3);
    } catch (e) {
      skipOrFailWithout(this, 'sshd test hosts', (e as Error).message);
    }
    // Each host's user has its own image store: the test image goes into every one.
    const { tag, tar } = testImageTarball();
    const shared = path.join(fx.env.dir, 'image.tar');
    fs.copyFileSync(tar, shared);
    fs.chmodSync(shared, 0o644);
    image = tag;
    const broken: string[] = [];
    await Promise.all(fx.env.hosts.map(async (h, i) => {
      const r = await h.exec(`podman info >/dev/null && podman import ${shq(shared)} ${shq(tag)} >/dev/null`);
      if (r.code !== 0) return void broken.push(`${h.user}: ${r.stderr.trim().slice(-600)}`);
      // The same image without ssh, under two tags (only the head's copies differ): in "-nossh"
      // apt-get fails as with no mirror; in "-sshpkg" a stand-in apt-get "installs" the saved
      // client. Neither reaches a network (tests talk to loopback only).
      const fakeApt = {
        nossh: '#!/bin/sh\necho "E: no mirror reachable (test image)" >&2\nexit 100\n',
        sshpkg: '#!/bin/sh\ncase "$1" in install) cp /opt/ssh-saved /usr/bin/ssh ;; esac\nexit 0\n',
      };
      for (const [suffix, apt] of Object.entries(fakeApt)) {
        const strip = `mkdir -p /opt && mv "$(command -v ssh)" /opt/ssh-saved && printf %s ${shq(apt)} > /usr/bin/apt-get && chmod 755 /usr/bin/apt-get`;
        const make = i === 0 ? // (runc where there is one: crun refuses this VM's hybrid cgroup hierarchy, as the node script knows)
          `podman run $(command -v runc >/dev/null && echo --runtime=runc) --network=host --name strip ${shq(tag)} sh -c ${shq(strip)} && podman commit -q strip ${shq(`${tag}-${suffix}`)} >/dev/null && podman rm strip >/dev/null`
          : `podman tag ${shq(tag)} ${shq(`${tag}-${suffix}`)}`;
        const r2 = await h.exec(make);
        assert.equal(r2.code, 0, r2.stderr);
      }
    }));
    if (broken.length) skipOrFailWithout(this, 'multi-node container tests', `rootless podman does not work for the test hosts' users (uidmap installed? ranges in /etc/subuid?): ${broken.join('; ')}`);
  });
  after(async () => {
    await fx?.cleanup(ops);
    await fx?.env.stop();
  });

  const hosts = () => fx.env.hosts;
  const inContainer = async (h: TestHost, name: string) => {
    const r = await h.exec(`podman exec ${shq(name)} ps -eo args`);
    assert.equal(r.code, 0, `${h.user}: ${r.stderr}`);
    return r.stdout.split('\n').slice(1).filter(Boolean);
  };

  it('launch → ranks in every container reach each other; cancel kills them all; down removes all 3', async () => {
    ops = await fx.ops('known');
    const port = await freePort(hosts()[0].address);
    // Rank 0 listens at its node's address; ranks 1 and 2 connect from their containers.
    const run = [
      'ips=$(printf %s "$SKYPILOT_NODE_IPS" | tr "\\n" ,)',
      '[ -e /run/.containerenv ] && where=container || where=host',
      'echo "rank=$SKYPILOT_NODE_RANK of $SKYPILOT_NUM_NODES ips=$ips in $where"',
      'head=$(printf %s "$SKYPILOT_NODE_IPS" | head -n1)',
      'if [ "$SKYPILOT_NODE_RANK" = 0 ]; then',
      '  python3 -c "import socket,sys',
      's=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(2); s.settimeout(120)',
      'got=sorted(s.accept()[0].makefile().readline().strip() for _ in range(2)); print(\'heard:\', \', \'.join(got))" "$head" "$PORT"',
      'else',
      '  python3 -c "import socket,sys,time',
      'for i in range(600):',
      '  try: c=socket.create_connection((sys.argv[1], int(sys.argv[2]))); break',
      '  except OSError: time.sleep(0.2)',
      'c.sendall((\'rank %s\\\\n\' % sys.argv[3]).encode())" "$head" "$PORT" "$SKYPILOT_NODE_RANK"',
      'fi',
    ];
    const task = writeTask(ops.workspaceRoot, 'gang.yaml', [
      'name: gang', 'num_nodes: 3', `envs: {PORT: "${port}"}`,
      `resources: {infra: ssh/lab, image_id: "docker:${image}"}`,
      'run: |', ...run.map((l) => `  ${l}`),
    ].join('\n'));
    let out = '';
    const r = await launch(ops, { taskFile: task, cluster: 'mc', onOutput: (d) => (out += d) });
    assert.equal(r.final?.status, 'SUCCEEDED', `${out}\n${r.final?.reason ?? ''}`);
    const ips = hosts().map((h) => h.address).join(',');
    assert.match(out, new RegExp(`rank=0 of 3 ips=${esc(ips)} in container\n`));
    assert.match(out, /heard: rank 1, rank 2\n/, 'rank 0 heard both workers over the host network');
    for (const rank of [1, 2]) {
      let log = '';
      await logs(ops, { cluster: 'mc', jobId: r.jobId, rank, onOutput: (d) => (log += d) });
      assert.equal(log, `rank=${rank} of 3 ips=${ips} in container\n`, `rank ${rank}`);
    }
    const row = (await status(ops))[0].cluster;
    const c = readHandle(row).container!;
    assert.deepEqual(c.workerRuntimes, ['podman', 'podman']);

    // A gang job whose ranks fork daemons: cancel leaves none in any container.
    const t2 = writeTask(ops.workspaceRoot, 'long.yaml', 'num_nodes: 3\nrun: |\n  (nohup sleep 78$SKYPILOT_NODE_RANK >/dev/null 2>&1 &)\n  sleep 77$SKYPILOT_NODE_RANK\n');
    const { jobId } = await exec(ops, { cluster: 'mc', taskFile: t2, detach: true });
    await waitFor('every rank and its daemon running in its container', async () => {
      const all = await Promise.all(hosts().map((h, i) => inContainer(h, c.name).then((ps) => ps.includes(`sleep 77${i}`) && ps.includes(`sleep 78${i}`))));
      return all.every(Boolean);
    }, 120_000);
    assert.deepEqual((await cancel(ops, 'mc', { jobIds: [jobId] }, 1)).cancelled, [jobId]);
    await waitFor('no rank process left in any container', async () => {
      const left = (await Promise.all(hosts().map((h) => inContainer(h, c.name)))).flat().filter((a) => /sleep 7[78]/.test(a));
      return left.length === 0;
    }, 60_000);
    assert.equal((await queue(ops, 'mc')).find((j) => j.job_id === jobId)?.status, 'CANCELLED');

    await down(ops, 'mc', { graceSeconds: 1 });
    for (const h of hosts()) {
      const ps = await h.exec(`podman ps -a --filter ${shq(`label=skydeck-cluster-uid=${row.uid}`)} --format '{{.Names}}'`);
      assert.equal(ps.code, 0, ps.stderr);
      assert.equal(ps.stdout.trim(), '', `${h.user}: the container is gone`);
      assert.doesNotMatch((await h.exec('cat ~/.ssh/authorized_keys')).stdout, /skydeck-cluster:/, h.user);
    }
  });

  it('a head image without ssh is refused, naming the head and the fix; down removes every node\'s container', async () => {
    await fx.cleanup(ops);
    ops = await fx.ops('known');
    const task = writeTask(ops.workspaceRoot, 'nossh.yaml', `num_nodes: 3\nresources: {infra: ssh/lab, image_id: "docker:${image}-nossh"}\nrun: echo hi\n`);
    const h0 = hosts()[0];
    await assert.rejects(launch(ops, { taskFile: task, cluster: 'ns' }), (e: Error) => {
      assert.match(e.message, new RegExp(`launch of ns: ssh ${esc(h0.user)}@${esc(h0.address)}:${h0.port} container skydeck-\\S+: image \\S+-nossh has no ssh client`));
      assert.match(e.message, /installing one failed: E: no mirror reachable \(test image\)/);
      assert.match(e.message, /→ use an image with an ssh client/);
      return true;
    });
    const row = (await status(ops))[0].cluster;
    assert.match(String(row.last_error), /has no ssh client/);
    await down(ops, 'ns', { graceSeconds: 1 });
    for (const h of hosts()) {
      const ps = await h.exec(`podman ps -a --filter ${shq(`label=skydeck-cluster-uid=${row.uid}`)} --format '{{.Names}}'`);
      assert.equal(ps.stdout.trim(), '', `${h.user}: the container is gone`);
    }
  });

  it('a head image without ssh but with a package manager gets the client installed, and the gang runs', async () => {
    await fx.cleanup(ops);
    ops = await fx.ops('known');
    const lines: string[] = [];
    ops.progress = (l) => lines.push(l);
    const task = writeTask(ops.workspaceRoot, 'sshpkg.yaml', `num_nodes: 3\nresources: {infra: ssh/lab, image_id: "docker:${image}-sshpkg"}\nrun: echo "rank $SKYPILOT_NODE_RANK"\n`);
    const r = await launch(ops, { taskFile: task, cluster: 'sp' });
    assert.equal(r.final?.status, 'SUCCEEDED');
    assert.ok(lines.some((l) => /Installing an ssh client in the head's container/.test(l)), lines.join('\n'));
    for (const rank of [0, 1, 2]) {
      let out = '';
      await logs(ops, { cluster: 'sp', jobId: r.jobId!, rank, onOutput: (d) => (out += d) });
      assert.match(out, new RegExp(`rank ${rank}\\n`));
    }
    await down(ops, 'sp', { graceSeconds: 1 });
  });
});

function shq(s: string): string {
  return `'${s.replace(/'/g, `'"'"'`)}'`;
}

function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
