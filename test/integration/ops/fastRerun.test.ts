// Re-runs over a real sshd host: an exec after one edit sends one file (the node's other files
// keep their inodes), deletions reach the node, and launch on an UP cluster skips an unchanged
// setup, runs a changed one, and --fast skips an unchanged workdir without asking the node.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { exec, launch } from '../../../src/core/ops';
import { TestOps, writeTask } from './helpers';
import { sshFixture, type SshFixture } from './sshFixture';

describe('fast re-runs (manifest sync, setup skip) over real sshd', function () {
  this.timeout(180_000);
  let fx: SshFixture;
  let ops: TestOps;
  before(async () => {
    fx = await sshFixture(1);
  });
  after(async () => {
    await fx.cleanup(ops);
    await fx?.env.stop();
  });

  async function inodes(): Promise<Map<string, string>> {
    const r = await fx.env.hosts[0].exec('cd ~/sky_workdir && find . -type f -exec stat -c "%i %n" {} +');
    return new Map(r.stdout.trim().split('\n').map((l) => { const [ino, name] = l.split(' '); return [name, ino]; }));
  }

  it('one edited file → one file sent; a delete propagates; setup re-runs only when it changed', async () => {
    ops = await fx.ops('known');
    const synced: string[] = [];
    ops.log = (m) => { if (m.startsWith('workdir synced')) synced.push(m); };
    const ws = ops.workspaceRoot;
    for (let i = 0; i < 50; i++) writeTask(ws, `proj/d${i % 5}/f${i}.txt`, `file ${i}\n`.repeat(100));
    const body = (setup: string) => ['workdir: proj', 'resources: {infra: ssh/lab}', `setup: ${setup}`, 'run: cat d2/f7.txt | head -1; ls d3 | wc -l'].join('\n');
    const task = writeTask(ws, 'task.yaml', body('echo SETUP-RAN'));
    let out = '';
    const r1 = await launch(ops, { taskFile: task, cluster: 'dev', onOutput: (d) => (out += d) });
    assert.equal(r1.final?.status, 'SUCCEEDED', out);
    assert.equal(out, 'SETUP-RAN\nfile 7\n10\n');
    assert.match(synced.pop()!, /\(full\): 50 files/);
    const before = await inodes();
    assert.equal(before.size, 50);

    fs.writeFileSync(path.join(ws, 'proj/d2/f7.txt'), 'edited\n');
    fs.rmSync(path.join(ws, 'proj/d3/f8.txt'));
    out = '';
    const r2 = await exec(ops, { cluster: 'dev', taskFile: task, onOutput: (d) => (out += d) });
    assert.equal(r2.final?.status, 'SUCCEEDED', out);
    assert.equal(out, 'edited\n9\n');
    assert.match(synced.pop()!, /\(delta\): 1 files, 7 bytes sent, 1 removed/);
    const after = await inodes();
    assert.equal(after.has('./d3/f8.txt'), false, 'the deleted file is still on the node');
    const replaced = [...after].filter(([n, ino]) => before.get(n) !== ino).map(([n]) => n);
    assert.deepEqual(replaced, ['./d2/f7.txt'], 'files other than the edited one were rewritten on the node');

    // Same setup on the UP cluster: skipped, and said so.
    out = '';
    const r3 = await launch(ops, { taskFile: task, cluster: 'dev', onOutput: (d) => (out += d) });
    assert.equal(out, 'edited\n9\n');
    assert.ok(ops.progressLines.some((l) => /setup unchanged since job 1: skipped/.test(l)), ops.progressLines.join('\n'));
    assert.equal(r3.final?.status, 'SUCCEEDED');

    // A changed setup runs again.
    writeTask(ws, 'task.yaml', body('echo SETUP-CHANGED'));
    out = '';
    await launch(ops, { taskFile: task, cluster: 'dev', onOutput: (d) => (out += d) });
    assert.equal(out, 'SETUP-CHANGED\nedited\n9\n');
    assert.ok(ops.progressLines.some((l) => /setup changed since job 1: it runs again/.test(l)));

    // --fast with nothing changed: the workdir is not even checked on the node, setup skipped.
    out = '';
    await launch(ops, { taskFile: task, cluster: 'dev', fast: true, onOutput: (d) => (out += d) });
    assert.equal(out, 'edited\n9\n');
    assert.match(synced.pop()!, /\(skipped\)/);
    // A job that edits the workdir on the node: the next (non-fast) exec restores the file.
    await fx.env.hosts[0].exec('echo job-wrote > ~/sky_workdir/d2/f7.txt');
    out = '';
    await exec(ops, { cluster: 'dev', taskFile: task, onOutput: (d) => (out += d) });
    assert.equal(out, 'edited\n9\n');
  });
});
