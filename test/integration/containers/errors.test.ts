// Issue 18: what a container launch says when it cannot work — unknown image, no runtime on
// the node, an image without python3, a hostile image_id — and registry passwords kept out of
// messages and the state file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { down, launch, status } from '../../../src/core/ops';
import { readHandle } from '../../../src/core/ops/clusterHandle';
import { testOps, TestOps, writeTask } from '../ops/helpers';
import { containersOf, requireTestImage } from '../../support/containers/testImage';

describe('container launch errors (podman)', function () {
  this.timeout(240_000);
  let ops: TestOps;
  let noPython: string;
  let image: string;
  before(function () {
    this.timeout(900_000);
    image = requireTestImage(this);
    noPython = requireTestImage(this, 'no-python');
  });
  beforeEach(async () => {
    ops = await testOps();
  });
  afterEach(async () => {
    await down(ops, 'bad', { graceSeconds: 1, purge: true }).catch(() => undefined);
    await ops.dispose();
  });
  const task = (image: string, extra = '') => writeTask(ops.workspaceRoot, 't.yaml', `resources: {cloud: local, image_id: ${JSON.stringify(`docker:${image}`)}}\n${extra}run: echo hi\n`);

  it('an image no registry has: the node, the image and the fix; down removes what is left', async () => {
    await assert.rejects(launch(ops, { taskFile: task('localhost:1/skydeck/no-such-image:7'), cluster: 'bad' }),
      /launch of bad: local: could not pull localhost:1\/skydeck\/no-such-image:7[\s\S]*→ check the image name and tag/);
    const row = (await status(ops))[0].cluster;
    assert.match(String(row.last_error), /could not pull/);
    const d = await down(ops, 'bad', { graceSeconds: 1 });
    assert.equal(d.cleaned, true);
    assert.deepEqual(containersOf(row.uid), []);
  });

  it('no container runtime on the node: says which and the package to install', async () => {
    ops.containerRuntimes = ['skydeck-no-such-runtime'];
    await assert.rejects(launch(ops, { taskFile: task('localhost/x:1'), cluster: 'bad' }),
      /local: no container runtime \(skydeck-no-such-runtime\) on \S+[\s\S]*apt-get install -y podman/);
  });

  it('an image without python3 is refused with the reason, and its container removed', async () => {
    await assert.rejects(launch(ops, { taskFile: task(noPython), cluster: 'bad' }),
      /lacks what the Skydeck agent needs inside it: \/bin\/sh, python3 \(3\.8 or newer, with sqlite3\)/);
    assert.deepEqual(containersOf((await status(ops))[0].cluster.uid), []);
  });

  it('a workspace path with spaces and quotes works; a container killed under the cluster is still downed, proved gone', async () => {
    await ops.dispose();
    ops = await testOps({ root: fs.mkdtempSync(path.join(os.tmpdir(), "sky deck 'q' $(x) ")) });
    const r = await launch(ops, { taskFile: task(image), cluster: 'bad' });
    assert.equal(r.final?.status, 'SUCCEEDED');
    const row = (await status(ops))[0].cluster;
    execFileSync('podman', ['kill', readHandle(row).container!.name], { stdio: 'ignore' });
    const d = await down(ops, 'bad', { graceSeconds: 1 });
    assert.equal(d.cleaned, true);
    assert.ok(d.notes.some((n) => /was not running/.test(n)), d.notes.join('\n'));
    assert.deepEqual(containersOf(row.uid), []);
    assert.equal(fs.existsSync(path.join(ops.workspaceRoot, '.skydeck', 'local', 'bad')), false);
  });

  it('a workspace path holding ":" cannot be bind-mounted: refused, and down clears the row', async () => {
    await ops.dispose();
    ops = await testOps({ root: fs.mkdtempSync(path.join(os.tmpdir(), 'sky:deck-')) });
    await assert.rejects(launch(ops, { taskFile: task(image), cluster: 'bad' }), /cannot bind-mount .*sky:deck-/);
    assert.equal((await down(ops, 'bad', { graceSeconds: 1 })).cleaned, true);
  });

  it('a hostile image_id never reaches a node', async () => {
    const marker = path.join(ops.workspaceRoot, 'pwned');
    for (const bad of [`x;touch ${marker}`, `$(touch ${marker})`, '--privileged', 'a b', 'x\nrun: y', '']) {
      await assert.rejects(launch(ops, { taskFile: task(bad), cluster: 'bad' }), /image_id: /, bad);
    }
    assert.equal(fs.existsSync(marker), false);
    assert.deepEqual(await status(ops), [], 'refused before any row was written');
  });

  it('a registry password goes to the login on stdin only: not in the error, the events or the state file', async () => {
    const password = 'pw-18-' + Math.random().toString(36).slice(2);
    const envs = { SKYPILOT_DOCKER_USERNAME: 'me', SKYPILOT_DOCKER_PASSWORD: password, SKYPILOT_DOCKER_SERVER: 'localhost:1' };
    const err = await launch(ops, { taskFile: task('localhost:1/private/img:1'), cluster: 'bad', envs }).then(() => undefined, (e: Error) => e);
    assert.ok(err, 'the launch failed');
    assert.match(err.message, /login to localhost:1 failed[\s\S]*SKYPILOT_DOCKER_USERNAME/);
    assert.ok(!err.message.includes(password));
    const dir = path.join(ops.workspaceRoot, '.skydeck');
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    for (const f of walk(dir)) assert.ok(!fs.readFileSync(f).includes(password), f);
    assert.ok(!ops.progressLines.join('\n').includes(password));
  });
});
