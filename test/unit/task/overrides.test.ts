import assert from 'node:assert/strict';
import { overrideTask, parseEnvFile, type TaskOverrides } from '../../../src/core/task';
import { task } from './helpers';

const over = (yaml: string, o: TaskOverrides) => {
  const r = overrideTask(task(yaml), o);
  assert.ok(r.ok, r.ok ? '' : r.errors.join('\n'));
  return r.task;
};
const errorsOf = (yaml: string, o: TaskOverrides) => {
  const r = overrideTask(task(yaml), o);
  assert.equal(r.ok, false, 'the override must be refused');
  return r.ok ? [] : r.errors;
};

describe('task overrides (launch/exec flags, as sky)', () => {
  it('each flag replaces its field', () => {
    const t = over('name: a\nworkdir: .\nresources:\n  cpus: 2\n  accelerators: V100:1\nrun: x\n', {
      name: 'b', workdir: './examples/foo', numNodes: '3', gpus: 'A100:8', cpus: '4+', memory: '32GB', diskSize: '100',
      instanceType: 'p4d.24xlarge', imageId: 'docker:ubuntu:22.04', ports: ['8080', '9000-9010'], useSpot: true,
    });
    assert.equal(t.name, 'b');
    assert.equal(t.workdir, './examples/foo');
    assert.equal(t.numNodes, 3);
    assert.deepEqual(t.resources.accelerators, [{ name: 'A100', count: 8 }]);
    assert.deepEqual(t.resources.cpus, { min: 4, orMore: true });
    assert.deepEqual(t.resources.memory, { min: 32, orMore: false });
    assert.equal(t.resources.diskSize, 100);
    assert.equal(t.resources.instanceType, 'p4d.24xlarge');
    assert.equal(t.resources.imageId, 'docker:ubuntu:22.04');
    assert.deepEqual(t.resources.ports, [{ from: 8080, to: 8080 }, { from: 9000, to: 9010 }]);
    assert.equal(t.resources.useSpot, true);
    assert.equal(over('resources:\n  use_spot: true\nrun: x\n', { useSpot: false }).resources.useSpot, false);
  });

  it('--gpus replaces a `gpus:` key too, and every any_of candidate gets the override', () => {
    const t = over('resources:\n  gpus: V100\n  any_of:\n    - cpus: 2\n      infra: aws\n    - cpus: 8\n      infra: gcp\nrun: x\n', { cpus: '16', gpus: 'L4:1' });
    assert.deepEqual(t.resources.anyOf!.map((c) => [c.cpus?.min, c.accelerators[0].name, c.cloud]), [[16, 'L4', 'aws'], [16, 'L4', 'gcp']]);
  });

  it('--infra replaces the placement; --region/--zone keep the form the task used', () => {
    const a = over('resources:\n  cloud: aws\n  region: us-east-1\n  zone: us-east-1a\nrun: x\n', { infra: 'gcp/us-central1' });
    assert.deepEqual([a.resources.cloud, a.resources.region, a.resources.zone], ['gcp', 'us-central1', undefined]);
    const b = over('resources:\n  infra: aws/us-east-1/us-east-1a\nrun: x\n', { region: 'us-west-2' });
    assert.deepEqual([b.resources.infra, b.resources.region, b.resources.zone], ['aws/us-west-2', 'us-west-2', undefined]);
    const c = over('resources:\n  cloud: aws\n  region: us-east-1\n  zone: us-east-1a\nrun: x\n', { zone: 'us-east-1b' });
    assert.deepEqual([c.resources.region, c.resources.zone], ['us-east-1', 'us-east-1b']);
    const d = over('run: x\n', { zone: 'z1' });
    assert.equal(d.resources.zone, 'z1');
    const e = over('resources:\n  infra: aws\nrun: x\n', { zone: 'us-east-1a' });
    assert.equal(e.resources.infra, 'aws/*/us-east-1a');
  });

  it('bad values are refused as the YAML field would be, naming the flag', () => {
    assert.match(errorsOf('run: x\n', { cpus: 'lots' }).join('\n'), /^--cpus: resources\.cpus must be a number/);
    assert.match(errorsOf('run: x\n', { gpus: 'A100:' }).join('\n'), /^--gpus: /);
    assert.match(errorsOf('run: x\n', { numNodes: '0' }).join('\n'), /^--num-nodes: /);
    assert.match(errorsOf('run: x\n', { numNodes: '2.5' }).join('\n'), /^--num-nodes: /);
    assert.match(errorsOf('run: x\n', { ports: ['70000'] }).join('\n'), /^--ports: /);
    assert.match(errorsOf('run: x\n', { diskSize: '-5' }).join('\n'), /^--disk-size: /);
    assert.match(errorsOf('run: x\n', { infra: 'aws//x//' }).join('\n'), /^--infra: /);
    assert.match(errorsOf('run: x\n', { name: 'n'.repeat(300) }).join('\n'), /^--name: /);
  });

  it('hostile values stay data: a __proto__ name, quotes and $() reach the task as text', () => {
    const t = over('run: x\n', { name: `a'"$(touch /tmp/pwn)\n` , imageId: '__proto__' });
    assert.equal(t.name, `a'"$(touch /tmp/pwn)\n`);
    assert.equal(t.resources.imageId, '__proto__');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('no overrides: the task is returned as parsed', () => {
    const t = task('run: x\n');
    const r = overrideTask(t, {});
    assert.ok(r.ok && r.task === t);
  });
});

describe('--env-file (dotenv, as python-dotenv reads it)', () => {
  it('reads KEY=VALUE, export, comments, both quotes', () => {
    const r = parseEnvFile('# c\nexport A=1\nB = two words # note\nC=\'lit $X \\n\'\nD="a\\nb \\"q\\""\n\nE=\n', 'f.env');
    assert.ok(r.ok);
    assert.deepEqual(r.values, { A: '1', B: 'two words', C: 'lit $X \\n', D: 'a\nb "q"', E: '' });
  });
  it('a line that is not NAME=VALUE is an error naming the line', () => {
    const bad = parseEnvFile('A=1\nnot a line\n', 'f.env');
    assert.deepEqual(bad, { ok: false, error: 'f.env:2: expected NAME=VALUE, got "not a line"' });
    assert.match((parseEnvFile('1X=2\n', 'f.env') as { error: string }).error, /f\.env:1: "1X" is not a valid variable name/);
    assert.match((parseEnvFile('A="open\n', 'f.env') as { error: string }).error, /unclosed quote/);
  });
  it('__proto__ is an ordinary key', () => {
    const r = parseEnvFile('__proto__=x\n', 'f.env');
    assert.ok(r.ok);
    assert.equal(Object.getPrototypeOf(r.values), Object.prototype);
    assert.equal(r.values.__proto__ as unknown, 'x');
  });
});
