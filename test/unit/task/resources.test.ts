// Every accepted `resources:` field form parses to the expected typed value.

import assert from 'node:assert/strict';
import { Resources } from '../../../src/core/task';
import { parse, resources, task, warnings } from './helpers';

describe('task YAML: resources', () => {
  it('cloud (any case), region, zone; Skydeck clouds local and ssh', () => {
    assert.deepEqual(resources('  cloud: AWS\n  region: us-east-1\n  zone: us-east-1a\n'),
      { ...task('run: x\n').resources, cloud: 'aws', region: 'us-east-1', zone: 'us-east-1a' });
    assert.equal(resources('  cloud: local\n').cloud, 'local');
    assert.equal(resources('  cloud: ssh\n').cloud, 'ssh');
  });

  it('infra: cloud, cloud/region, cloud/region/zone, wildcards, kubernetes contexts', () => {
    const pick = (r: Resources) => [r.infra, r.cloud, r.region, r.zone];
    assert.deepEqual(pick(resources('  infra: aws\n')), ['aws', 'aws', undefined, undefined]);
    assert.deepEqual(pick(resources('  infra: aws/us-east-1\n')), ['aws/us-east-1', 'aws', 'us-east-1', undefined]);
    assert.deepEqual(pick(resources('  infra: gcp/us-central1/us-central1-a\n')), ['gcp/us-central1/us-central1-a', 'gcp', 'us-central1', 'us-central1-a']);
    assert.deepEqual(pick(resources('  infra: "*/us-east-1"\n')), ['*/us-east-1', undefined, 'us-east-1', undefined]);
    assert.deepEqual(pick(resources('  infra: local\n')), ['local', 'local', undefined, undefined]);
    assert.deepEqual(pick(resources('  infra: ssh/lab-pool\n')), ['ssh/lab-pool', 'ssh', 'lab-pool', undefined]);
    const k8s = parse('resources:\n  infra: k8s/arn:aws:eks:us-east-1:1:cluster/c1\n');
    assert.equal(k8s.ok, true);
    assert.deepEqual(pick(k8s.tasks[0].resources), ['k8s/arn:aws:eks:us-east-1:1:cluster/c1', 'kubernetes', 'arn:aws:eks:us-east-1:1:cluster/c1', undefined]);
  });

  it('clouds Skydeck cannot launch on yet parse with a warning', () => {
    const r = parse('resources:\n  cloud: lambda\n');
    assert.equal(r.ok, true);
    assert.equal(r.tasks[0].resources.cloud, 'lambda');
    assert.deepEqual(warnings(r), ['2:10 Skydeck cannot launch on cloud "lambda" yet']);
    assert.deepEqual(warnings(parse('resources:\n  infra: runpod/US\n')), ['2:10 Skydeck cannot launch on cloud "runpod" yet']);
  });

  it('cpus: number, fraction, "N+"', () => {
    assert.deepEqual(resources('  cpus: 4\n').cpus, { min: 4, orMore: false });
    assert.deepEqual(resources('  cpus: 0.5\n').cpus, { min: 0.5, orMore: false });
    assert.deepEqual(resources('  cpus: 4+\n').cpus, { min: 4, orMore: true });
    assert.deepEqual(resources('  cpus: "8"\n').cpus, { min: 8, orMore: false });
  });

  it('memory: GB number, "N+", sizes with units', () => {
    assert.deepEqual(resources('  memory: 32\n').memory, { min: 32, orMore: false });
    assert.deepEqual(resources('  memory: 32+\n').memory, { min: 32, orMore: true });
    assert.deepEqual(resources('  memory: 64GB+\n').memory, { min: 64, orMore: true });
    assert.deepEqual(resources('  memory: 512MB\n').memory, { min: 0.5, orMore: false });
    assert.deepEqual(resources('  memory: 1TB\n').memory, { min: 1024, orMore: false });
    assert.deepEqual(resources('  memory: 16Gi\n').memory, { min: 16, orMore: false });
  });

  it('accelerators as a string, with a count, and fractional', () => {
    assert.deepEqual(resources('  accelerators: V100\n').accelerators, [{ name: 'V100', count: 1 }]);
    assert.deepEqual(resources('  accelerators: A100:8\n').accelerators, [{ name: 'A100', count: 8 }]);
    assert.deepEqual(resources('  accelerators: L4:0.25\n').accelerators, [{ name: 'L4', count: 0.25 }]);
    assert.deepEqual(resources('  accelerators: tpu-v2-8\n').accelerators, [{ name: 'tpu-v2-8', count: 1 }]);
  });

  it('accelerators as a mapping, a set (any of) and a list (in order)', () => {
    const dict = resources('  accelerators: {A100: 8}\n');
    assert.deepEqual([dict.accelerators, dict.acceleratorsOrdered], [[{ name: 'A100', count: 8 }], false]);
    const set = resources('  accelerators: {V100, A100: 2}\n');
    assert.deepEqual([set.accelerators, set.acceleratorsOrdered], [[{ name: 'V100', count: 1 }, { name: 'A100', count: 2 }], false]);
    const list = resources('  accelerators: [H100:1, A100:1, L4]\n');
    assert.deepEqual([list.accelerators, list.acceleratorsOrdered],
      [[{ name: 'H100', count: 1 }, { name: 'A100', count: 1 }, { name: 'L4', count: 1 }], true]);
  });

  it('gpus is an alias of accelerators', () => {
    assert.deepEqual(resources('  gpus: H100:2\n').accelerators, [{ name: 'H100', count: 2 }]);
  });

  it('memory-based accelerator requests', () => {
    assert.deepEqual(resources('  accelerators: 80GB+\n').accelerators, [{ name: '80GB+', count: 1, memory: { gb: 80, orMore: true } }]);
    assert.deepEqual(resources('  accelerators: nvidia:24GB:2\n').accelerators,
      [{ name: 'nvidia:24GB', count: 2, memory: { gb: 24, orMore: false, manufacturer: 'nvidia' } }]);
  });

  it('instance_type, use_spot, disk_size (GB and units), disk_tier', () => {
    const r = resources('  instance_type: p3.2xlarge\n  use_spot: true\n  disk_size: 1TB\n  disk_tier: HIGH\n');
    assert.deepEqual([r.instanceType, r.useSpot, r.diskSize, r.diskTier], ['p3.2xlarge', true, 1024, 'high']);
    assert.equal(resources('  disk_size: 256\n').diskSize, 256);
    for (const tier of ['low', 'medium', 'high', 'ultra', 'best', 'none']) assert.equal(resources(`  disk_tier: ${tier}\n`).diskTier, tier);
  });

  it('job_recovery as a string or a mapping; spot_recovery with a deprecation warning', () => {
    assert.deepEqual(resources('  job_recovery: FAILOVER\n').jobRecovery, { strategy: 'FAILOVER' });
    assert.deepEqual(resources('  job_recovery: {strategy: EAGER_NEXT_REGION, max_restarts_on_errors: 3, recover_on_exit_codes: 33}\n').jobRecovery,
      { strategy: 'EAGER_NEXT_REGION', maxRestartsOnErrors: 3, recoverOnExitCodes: [33] });
    assert.deepEqual(resources('  job_recovery: {max_restarts_on_errors: 1, recover_on_exit_codes: [1, 2]}\n').jobRecovery,
      { maxRestartsOnErrors: 1, recoverOnExitCodes: [1, 2] });
    const old = parse('resources:\n  spot_recovery: FAILOVER\n');
    assert.deepEqual(old.tasks[0].resources.jobRecovery, { strategy: 'FAILOVER' });
    assert.deepEqual(warnings(old), ['2:3 resources.spot_recovery is deprecated']);
  });

  it('ports: a number, a range, a list, or empty', () => {
    assert.deepEqual(resources('  ports: 8080\n').ports, [{ from: 8080, to: 8080 }]);
    assert.deepEqual(resources('  ports: "8000-8010"\n').ports, [{ from: 8000, to: 8010 }]);
    assert.deepEqual(resources('  ports: [22, "8888", 6006-6010]\n').ports, [{ from: 22, to: 22 }, { from: 8888, to: 8888 }, { from: 6006, to: 6010 }]);
    assert.deepEqual(resources('  ports:\n').ports, []);
  });

  it('image_id as a string or per region; labels', () => {
    assert.equal(resources('  image_id: docker:ubuntu:22.04\n').imageId, 'docker:ubuntu:22.04');
    assert.deepEqual(resources('  image_id:\n    us-east-1: ami-1\n    us-west-2: ami-2\n').imageId, { 'us-east-1': 'ami-1', 'us-west-2': 'ami-2' });
    assert.deepEqual(resources('  labels: {team: ml, env: "3"}\n').labels, { team: 'ml', env: '3' });
  });

  it('autostop: boolean, minutes, durations, mapping', () => {
    assert.deepEqual(resources('  autostop: true\n').autostop, { enabled: true, down: false });
    assert.deepEqual(resources('  autostop: false\n').autostop, { enabled: false, down: false });
    assert.deepEqual(resources('  autostop: 10\n').autostop, { enabled: true, idleMinutes: 10, down: false });
    assert.deepEqual(resources('  autostop: 10m\n').autostop, { enabled: true, idleMinutes: 10, down: false });
    assert.deepEqual(resources('  autostop: 2h\n').autostop, { enabled: true, idleMinutes: 120, down: false });
    assert.deepEqual(resources('  autostop: 1d\n').autostop, { enabled: true, idleMinutes: 1440, down: false });
    assert.deepEqual(resources('  autostop: {idle_minutes: 30, down: true, wait_for: JOBS, hook: ./save.sh, hook_timeout: 60}\n').autostop,
      { enabled: true, idleMinutes: 30, down: true, waitFor: 'jobs', hook: './save.sh', hookTimeout: 60 });
  });

  it('any_of candidates inherit the fields around them; labels merge', () => {
    const r = resources([
      '  cpus: 8+',
      '  labels: {team: a}',
      '  any_of:',
      '    - infra: aws/us-east-1',
      '      accelerators: A10G',
      '    - cloud: gcp',
      '      accelerators: {L4: 1}',
      '      labels: {billing: b}',
      '      cpus: 4',
      '',
    ].join('\n'));
    assert.equal(r.ordered, undefined);
    assert.equal(r.anyOf?.length, 2);
    const [a, b] = r.anyOf!;
    assert.deepEqual([a.cloud, a.region, a.cpus, a.accelerators, a.labels],
      ['aws', 'us-east-1', { min: 8, orMore: true }, [{ name: 'A10G', count: 1 }], { team: 'a' }]);
    assert.deepEqual([b.cloud, b.cpus, b.accelerators, b.labels],
      ['gcp', { min: 4, orMore: false }, [{ name: 'L4', count: 1 }], { team: 'a', billing: 'b' }]);
    assert.equal(a.anyOf, undefined);
  });

  it('ordered candidates keep their order; infra in a candidate replaces the base cloud', () => {
    const r = resources('  cloud: aws\n  ordered:\n    - accelerators: H100:8\n    - infra: gcp/us-central1\n      accelerators: A100:8\n');
    assert.deepEqual(r.ordered?.map((c) => [c.cloud, c.region, c.accelerators[0].name]), [['aws', undefined, 'H100'], ['gcp', 'us-central1', 'A100']]);
  });

  it('resource fields Skydeck ignores parse with a warning (also inside candidates)', () => {
    const r = parse([
      'resources:',
      '  network_tier: best',
      '  accelerator_args: {tpu_vm: true}',
      '  priority: 10',
      '  max_hourly_cost: 2.5',
      '  any_of:',
      '    - cloud: aws',
      '      ephemeral_storage: 10GB',
      '',
    ].join('\n'));
    assert.equal(r.ok, true);
    assert.deepEqual(warnings(r), [
      '2:3 resources.network_tier is not used by Skydeck yet and will be ignored',
      '3:3 resources.accelerator_args is not used by Skydeck yet and will be ignored',
      '4:3 resources.priority is not used by Skydeck yet and will be ignored',
      '5:3 resources.max_hourly_cost is not used by Skydeck yet and will be ignored',
      '8:7 resources.any_of[0].ephemeral_storage is not used by Skydeck yet and will be ignored',
    ]);
  });
});
