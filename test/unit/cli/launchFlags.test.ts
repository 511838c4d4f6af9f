// launch/exec as a SkyPilot user types them, on the local cloud: SkyPilot-style layouts (the
// YAML in examples/foo/, run from the repo root), inline commands, and the override flags.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { inDir, layout, openBench, type Bench } from './helpers';

describe('cli: launch/exec paths, inline commands and flags (local cloud)', function () {
  this.timeout(120_000);
  let b: Bench;
  let repo: string;
  const inRepo = (...argv: string[]) => inDir(repo, () => b.run(...argv));

  before(async () => {
    b = await openBench('skydeck-cli-flags-');
    repo = layout(path.join(b.root, 'repo'), {
      'marker.txt': 'repo-root-marker\n',
      'examples/foo/train.py': 'foo-train\n',
      'examples/foo/here.yaml': 'workdir: .\nrun: cat marker.txt\n',
      'examples/foo/top.yaml': 'workdir: .\nrun: test -d foo && echo FOO-AT-TOP\n',
      'examples/foo/sub.yaml': 'workdir: ./examples/foo\nrun: cat train.py\n',
      'examples/foo/setup.yaml': 'setup: echo SETUP-RAN\nrun: echo RUN-RAN\n',
      'examples/foo/envs.yaml': 'envs:\n  A: from-yaml\n  B: null\nsecrets:\n  TOKEN: null\nrun: echo "A=$A B=$B T=${#TOKEN}"\n',
      'vars.env': 'B=from-file\nA=file-a\n',
    });
  });
  after(async () => b.close());

  it('workdir: . resolves against the working directory (the repo root), as sky does', async () => {
    const r = await inRepo('launch', 'examples/foo/here.yaml', '-c', 'w1');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /repo-root-marker/);
  });

  it('workdir: ./examples/foo from the repo root is the example folder', async () => {
    const r = await inRepo('exec', 'w1', 'examples/foo/sub.yaml');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /foo-train/);
  });

  it('run from another folder, workdir: . is that folder, not the YAML\'s', async () => {
    const r = await inDir(path.join(repo, 'examples'), () => b.run('exec', 'w1', 'foo/top.yaml'));
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(r.out, /FOO-AT-TOP/);
  });

  it('an inline command instead of a YAML, quoted or after --', async () => {
    const a = await inRepo('exec', 'w1', 'echo inline $((1+2))');
    assert.equal(a.code, 0, a.err);
    assert.match(a.out, /inline 3/);
    const c = await inRepo('exec', 'w1', '--', 'echo', 'after', 'dashes');
    assert.equal(c.code, 0, c.err);
    assert.match(c.out, /after dashes/);
    const l = await inRepo('launch', '-c', 'w2', 'echo launched inline');
    assert.equal(l.code, 0, l.err);
    assert.match(l.out, /launched inline/);
  });

  it('an inline command syncs no workdir unless --workdir names one (relative to the working directory)', async () => {
    const r = await inRepo('exec', 'w1', '--workdir', 'examples/foo', 'cat train.py');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /foo-train/);
  });

  it('a missing .yaml is refused, not run as a command', async () => {
    const r = await inRepo('exec', 'w1', 'nope.yaml');
    assert.equal(r.code, 2);
    assert.match(r.err, /nope\.yaml.*file not found/);
  });

  it('--env-file, --env over it, --secret K from the shell; the secret value is never printed by skydeck', async () => {
    process.env.SKYDECK_TEST_TOKEN_X = 's3cr3t-value';
    try {
      const r = await inRepo('exec', 'w1', 'examples/foo/envs.yaml', '--env-file', 'vars.env', '--env', 'A=flag-a', '--secret', 'TOKEN=abcdef');
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /A=flag-a B=from-file T=6/);
      const s = await inRepo('exec', 'w1', 'echo ${#SKYDECK_TEST_TOKEN_X}', '--secret', 'SKYDECK_TEST_TOKEN_X');
      assert.equal(s.code, 0, s.err);
      assert.match(s.out, /^12$/m);
      assert.doesNotMatch(s.err, /s3cr3t-value/);
    } finally {
      delete process.env.SKYDECK_TEST_TOKEN_X;
    }
    const missing = await inRepo('exec', 'w1', 'examples/foo/envs.yaml', '--env', 'B=1');
    assert.equal(missing.code, 2);
    assert.match(missing.err, /secret "TOKEN" has no value; give it with --secret TOKEN=VALUE/);
    const bad = await inRepo('exec', 'w1', 'true', '--env-file', 'examples/foo/train.py');
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--env-file examples\/foo\/train\.py:1: expected NAME=VALUE/);
  });

  it('--no-setup skips setup; without it setup runs', async () => {
    const plain = await inRepo('launch', 'examples/foo/setup.yaml', '-c', 'w1');
    assert.match(plain.out, /SETUP-RAN[\s\S]*RUN-RAN/);
    const r = await inRepo('launch', 'examples/foo/setup.yaml', '-c', 'w1', '--no-setup');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /RUN-RAN/);
    assert.doesNotMatch(r.out, /SETUP-RAN/);
  });

  it('-n names the job and --cpus is its request (queue shows both)', async () => {
    const r = await inRepo('exec', 'w1', '-n', 'named-job', '--cpus', '1', '-d', 'true');
    assert.equal(r.code, 0, r.err);
    const q = await inRepo('queue', 'w1');
    assert.match(q.out, /named-job +tester .* 1 CPU/);
  });

  it('override values are checked like the YAML field and name the flag (exit 2, nothing run)', async () => {
    for (const [argv, msg] of [
      [['--cpus', 'lots'], /--cpus: resources\.cpus must be a number/],
      [['--gpus', 'A100:x'], /--gpus: /],
      [['--num-nodes', '0'], /--num-nodes: /],
      [['--ports', '99999'], /--ports: /],
      [['--use-spot', '--no-use-spot'], /contradict/],
      [['--infra', 'aws/r1', '--region', 'r2'], /--infra already names the region/],
      [['--secret', '1BAD=x'], /--secret "1BAD=x": "1BAD" is not a valid variable name/],
    ] as [string[], RegExp][]) {
      const r = await inRepo('exec', 'w1', 'true', ...argv);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.err}`);
      assert.match(r.err, msg);
    }
  });

  it('--num-nodes reaches the launch: the local cloud refuses two nodes', async () => {
    const r = await inRepo('launch', '-c', 'w3', '--num-nodes', '2', 'true');
    assert.equal(r.code, 2);
    assert.match(r.err, /num_nodes: 2: the local cloud is this one machine/);
  });

  it('down both', async () => {
    const r = await b.run('down', 'w1', 'w2', '-y');
    assert.equal(r.code, 0, r.err);
  });
});
