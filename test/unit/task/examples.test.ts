// The realistic task YAMLs in examples/: each parses to the expected Task, and re-stringifying
// a task's `raw` and parsing it again gives the same Task (nothing lost or invented).

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Task, parseTaskFile, parseTaskText, resolveEnvs } from '../../../src/core/task';

const dir = join(__dirname, '..', '..', '..', 'examples');

/** Checks for one example: the diagnostics expected, then assertions on its tasks. */
const expectations: Record<string, { diagnostics?: string[]; check: (tasks: Task[]) => void }> = {
  'hello.sky.yaml': {
    check: ([t]) => {
      assert.equal(t.name, 'hello');
      assert.equal(t.resources.cloud, 'local');
      assert.equal(t.workdir, undefined);
      assert.match(t.setup ?? '', /^echo /);
      assert.match(t.run ?? '', /\\r\[%-10s\]/, 'the run prints a carriage-return progress bar');
      const sleeps = [...(t.run ?? '').matchAll(/sleep ([\d.]+)/g)].map((m) => Number(m[1]));
      assert.deepEqual(sleeps, [1, 0.3, 1]);
    },
  },
  'minimal.yaml': {
    check: ([t]) => {
      assert.deepEqual(Object.keys(t.raw as object), ['run']);
      assert.equal(t.run, 'echo "hello, world"');
      assert.equal(t.numNodes, 1);
      assert.deepEqual(t.resources.accelerators, []);
    },
  },
  'job-queue-fractional-gpus.yaml': {
    check: ([t]) => {
      assert.deepEqual(t.resources.accelerators, [{ name: 'L4', count: 0.25 }]);
      assert.deepEqual([t.resources.cloud, t.resources.region], ['gcp', 'us-central1']);
      assert.deepEqual(t.resources.cpus, { min: 2, orMore: true });
      assert.deepEqual(t.resources.memory, { min: 8, orMore: true });
      assert.deepEqual(t.envs, { MODEL: 'distilbert-base-uncased', BATCH_SIZE: '32' });
    },
  },
  'distributed-training.yaml': {
    check: ([t]) => {
      assert.equal(t.numNodes, 2);
      assert.deepEqual(t.resources.accelerators, [{ name: 'A100', count: 8 }]);
      assert.deepEqual([t.resources.cloud, t.resources.region, t.resources.diskSize, t.resources.diskTier], ['aws', 'us-east-1', 512, 'high']);
      assert.equal(t.workdir, '.');
      assert.deepEqual(t.envs, { EPOCHS: '3', MASTER_PORT: '29500' });
      assert.match(t.run ?? '', /torchrun/);
    },
  },
  'file-mounts.yaml': {
    check: ([t]) => {
      assert.deepEqual(t.fileMounts, {
        '~/.netrc': { kind: 'copy', source: '~/.netrc' },
        '/remote/config': { kind: 'copy', source: './config' },
        '/datasets': { kind: 'bucket', mount: { kind: 'url', url: 's3://my-team-datasets', store: 's3', bucket: 'my-team-datasets', prefix: '', mode: 'COPY' } },
        '/outputs': { kind: 'bucket', mount: { kind: 'named', store: 's3', name: 'my-team-datasets-outputs', mode: 'MOUNT', persistent: false, localSource: './outputs' } },
        '/inputs': { kind: 'bucket', mount: { kind: 'named', store: 's3', name: 'mounts-demo-inputs', mode: 'COPY', persistent: true, localFiles: ['./inputs/a.csv', './inputs/b.csv'] } },
        '/checkpoints': { kind: 'bucket', mount: { kind: 'named', store: 'gcs', name: 'mounts-demo-ckpt', mode: 'MOUNT_CACHED', persistent: true } },
      });
    },
  },
  'spot-recovery.yaml': {
    check: ([t]) => {
      const r = t.resources;
      assert.equal(r.useSpot, true);
      assert.equal(r.cloud, 'aws');
      assert.deepEqual(r.accelerators, [{ name: 'A10G', count: 1 }]);
      assert.deepEqual(r.jobRecovery, { strategy: 'EAGER_NEXT_REGION', maxRestartsOnErrors: 3, recoverOnExitCodes: [33, 34] });
      assert.deepEqual(r.autostop, { enabled: true, idleMinutes: 30, down: true });
      assert.equal(t.setup, 'pip install --quiet -r requirements.txt');
    },
  },
  'any-of.yaml': {
    check: ([t]) => {
      const c = t.resources.anyOf ?? [];
      assert.deepEqual(c.map((x) => [x.cloud, x.region, x.accelerators[0].name, x.useSpot]),
        [['aws', 'us-east-1', 'A10G', false], ['gcp', 'us-central1', 'L4', false], ['azure', undefined, 'T4', true]]);
      for (const x of c) assert.deepEqual([x.cpus, x.memory], [{ min: 8, orMore: true }, { min: 32, orMore: true }]);
      assert.deepEqual(c[1].labels, { team: 'research', billing: 'gcp-credits' });
      assert.deepEqual(c[0].labels, { team: 'research' });
    },
  },
  'ordered.yaml': {
    check: ([t]) => {
      const c = t.resources.ordered ?? [];
      assert.deepEqual(c.map((x) => [x.cloud, x.region, x.accelerators[0].name, x.accelerators[0].count, x.diskSize]),
        [['gcp', 'us-central1', 'H100', 8, 1024], ['aws', 'us-west-2', 'A100-80GB', 8, 1024], ['azure', 'eastus', 'A100', 8, 1024]]);
      assert.equal(c[2].instanceType, 'Standard_ND96asr_v4');
    },
  },
  'env-check.yaml': {
    check: ([t]) => {
      assert.deepEqual(t.envs, { DATASET: null, HF_TOKEN: null, SPLIT: 'train', MAX_ROWS: '1000', VERBOSE: 'True' });
      assert.deepEqual(t.secrets, { WANDB_API_KEY: null });
      assert.deepEqual(resolveEnvs(t, { HF_TOKEN: 'hf_x' }).missing, ['DATASET']);
    },
  },
  'git-workdir.yaml': {
    check: ([t]) => {
      assert.deepEqual(t.workdir, { url: 'https://github.com/example-org/example-trainer.git', ref: 'v1.4.0' });
      assert.deepEqual([t.resources.cloud, t.resources.region, t.resources.cpus, t.resources.memory],
        ['aws', 'eu-west-1', { min: 4, orMore: false }, { min: 16, orMore: false }]);
    },
  },
  'notebook-server.yaml': {
    check: ([t]) => {
      const r = t.resources;
      assert.deepEqual([r.cloud, r.region, r.zone], ['aws', 'us-east-1', 'us-east-1a']);
      assert.equal(r.imageId, 'docker:pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime');
      assert.deepEqual(r.ports, [{ from: 8888, to: 8888 }, { from: 6006, to: 6010 }]);
      assert.deepEqual(r.labels, { owner: 'data-science', purpose: 'notebook' });
      assert.deepEqual(r.autostop, { enabled: true, idleMinutes: 60, down: false });
    },
  },
  'accelerator-choices.yaml': {
    diagnostics: ['warning 8:3 resources.spot_recovery is deprecated'],
    check: ([t]) => {
      const r = t.resources;
      assert.deepEqual(r.accelerators.map((a) => `${a.name}:${a.count}`), ['H100:1', 'A100:1', 'L40S:1']);
      assert.equal(r.acceleratorsOrdered, true);
      assert.deepEqual(r.jobRecovery, { strategy: 'FAILOVER' });
      assert.deepEqual(r.imageId, { 'us-east-1': 'ami-0123456789abcdef0', 'us-west-2': 'ami-0fedcba9876543210' });
    },
  },
  'ssh-cluster.yaml': {
    check: ([t]) => {
      const r = t.resources;
      assert.deepEqual([r.cloud, r.region], ['ssh', 'lab-pool']);
      assert.deepEqual([r.cpus, r.memory], [{ min: 16, orMore: true }, { min: 64, orMore: true }]);
      assert.deepEqual(r.accelerators, [{ name: 'RTX4090', count: 2 }]);
      assert.deepEqual(t.envs, { CUDA_VISIBLE_DEVICES: '0,1' });
    },
  },
  'pipeline.yaml': {
    diagnostics: ['warning 4:1 this file has 3 YAML documents (a pipeline); launch does not support pipelines yet'],
    check: (tasks) => {
      assert.deepEqual(tasks.map((t) => [t.docIndex, t.name]), [[0, 'prep-then-train'], [1, 'prep'], [2, 'train']]);
      assert.deepEqual(tasks[2].resources.accelerators, [{ name: 'A100', count: 1 }]);
    },
  },
};

const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();

describe('examples/', () => {
  it('has a dozen or more examples, each with expectations here', () => {
    assert.ok(files.length >= 12, `only ${files.length} examples`);
    assert.deepEqual(files, Object.keys(expectations).sort());
  });

  for (const file of files) {
    describe(file, () => {
      const expected = expectations[file];

      it('parses to the expected task', async () => {
        const result = await parseTaskFile(join(dir, file));
        assert.deepEqual(result.diagnostics.map((d) => `${d.severity} ${d.line}:${d.col} ${d.message}`), expected?.diagnostics ?? []);
        assert.equal(result.ok, true);
        expected?.check(result.tasks);
      });

      it('round-trips: stringify(raw) parses to the same task', async () => {
        const result = await parseTaskFile(join(dir, file));
        assert.ok(result.tasks.length > 0);
        for (const t of result.tasks) {
          const again = parseTaskText(stringify(t.raw, { version: '1.1' }), 'again.yaml');
          assert.equal(again.ok, true, again.diagnostics.map((d) => d.message).join('\n'));
          assert.equal(again.tasks.length, 1);
          assert.deepEqual(again.tasks[0], { ...t, docIndex: 0 });
          // JSON is YAML too: the plain JSON form parses the same.
          const json = parseTaskText(JSON.stringify(t.raw), 'again.json');
          assert.deepEqual(json.tasks[0], { ...t, docIndex: 0 });
        }
      });
    });
  }
});
