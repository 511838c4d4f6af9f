// Browse GPUs' edit (ui/taskYaml/acceleratorEdit.ts): `accelerators: NAME:N` set under
// `resources:` in every layout a task file may have, comments and indentation kept, and the
// result read back by the task parser (as PyYAML reads it).
import assert from 'node:assert/strict';
import { acceleratorsEdit, acceleratorValue, applyEdit } from '../../../src/ui/taskYaml/acceleratorEdit';
import { parseTaskText } from '../../../src/core/task';

function set(text: string, value = 'A100:8'): string {
  const r = acceleratorsEdit(text, value);
  assert.ok(r.ok, r.ok ? '' : r.why);
  return applyEdit(text, r.edit);
}

/** The parsed task's first accelerator, as "NAME:N". */
function accOf(text: string): string {
  const r = parseTaskText(text, 't.yaml');
  assert.ok(r.ok && r.tasks[0], `${text}\n${JSON.stringify(r.diagnostics)}`);
  const a = r.tasks[0].resources.accelerators;
  assert.equal(a.length, 1, text);
  return `${a[0].name}:${a[0].count}`;
}

describe('task YAML: set accelerators (Browse GPUs)', () => {
  it('existing block: a new first key at the block\'s own indent; comments and other keys stay', () => {
    const text = '# my task\nresources:   # where\n    cloud: aws  # keep\n    cpus: 4+\n\nrun: echo hi\n';
    const out = set(text);
    assert.equal(out, '# my task\nresources:   # where\n    accelerators: A100:8\n    cloud: aws  # keep\n    cpus: 4+\n\nrun: echo hi\n');
    assert.equal(accOf(out), 'A100:8');
  });

  it('existing accelerators (scalar): only the value changes, its comment stays', () => {
    const out = set('resources:\n  accelerators: V100:1   # was\n  cloud: gcp\nrun: x\n', 'L4:2');
    assert.equal(out, 'resources:\n  accelerators: L4:2 # was\n  cloud: gcp\nrun: x\n');
    assert.equal(accOf(out), 'L4:2');
  });

  it('accelerators as a dict (block form): replaced by the scalar; a comment inside it is kept', () => {
    const text = 'resources:\n  accelerators:\n    # the big one\n    V100: 1\n    A100: 1\n  disk_size: 100\nrun: x\n';
    const out = set(text, 'H100:8');
    assert.equal(out, 'resources:\n  accelerators: H100:8\n    # the big one\n  disk_size: 100\nrun: x\n');
    assert.equal(accOf(out), 'H100:8');
  });

  it('accelerators as a flow dict or list (also over several lines): replaced whole', () => {
    assert.equal(set('resources:\n  accelerators: {V100: 1, T4: 1}  # c\nrun: x\n', 'T4:1'), 'resources:\n  accelerators: T4:1  # c\nrun: x\n');
    const multi = set('resources:\n  accelerators: [V100:1,\n     T4:1]\n  cloud: aws\nrun: x\n', 'T4:4');
    assert.equal(multi, 'resources:\n  accelerators: T4:4\n  cloud: aws\nrun: x\n');
    assert.equal(accOf(multi), 'T4:4');
  });

  it('accelerators as a block list at the key\'s own indent: replaced', () => {
    const out = set('resources:\n  accelerators:\n  - V100:1\n  - T4:1\n  cloud: aws\nrun: x\n', 'A10G:1');
    assert.equal(out, 'resources:\n  accelerators: A10G:1\n  cloud: aws\nrun: x\n');
    assert.equal(accOf(out), 'A10G:1');
  });

  it('no resources: a new block at the end, in the file\'s indent step; a missing final newline is added first', () => {
    const out = set('name: t\nenvs:\n    A: 1\nrun: |\n    echo hi', 'T4:1');
    assert.equal(out, 'name: t\nenvs:\n    A: 1\nrun: |\n    echo hi\nresources:\n    accelerators: T4:1\n');
    assert.equal(accOf(out), 'T4:1');
    assert.equal(set('run: x\n'), 'run: x\nresources:\n  accelerators: A100:8\n');
  });

  it('resources: with nothing, null or ~ under it (the comment stays on its line)', () => {
    assert.equal(set('resources:\nrun: x\n'), 'resources:\n  accelerators: A100:8\nrun: x\n');
    const n = set('resources: null  # later\nrun: x\n');
    assert.equal(n, 'resources: # later\n  accelerators: A100:8\nrun: x\n');
    assert.equal(accOf(n), 'A100:8');
  });

  it('flow style: added to the mapping (quoted: a colon in flow context), or its value replaced', () => {
    const out = set('resources: {cpus: 4}\nrun: x\n');
    assert.equal(out, "resources: {cpus: 4, accelerators: 'A100:8'}\nrun: x\n");
    assert.equal(accOf(out), 'A100:8');
    assert.equal(set('resources: {}\nrun: x\n'), "resources: {accelerators: 'A100:8'}\nrun: x\n");
    const rep = set("resources: {accelerators: 'V100:1', cloud: aws}  # c\nrun: x\n", 'T4:2');
    assert.equal(rep, "resources: {accelerators: 'T4:2', cloud: aws}  # c\nrun: x\n");
    assert.equal(accOf(rep), 'T4:2');
  });

  it('CRLF files keep CRLF', () => {
    assert.equal(set('resources:\r\n  cloud: aws\r\nrun: x\r\n'), 'resources:\r\n  accelerators: A100:8\r\n  cloud: aws\r\nrun: x\r\n');
  });

  it('a nested accelerators (under any_of) is not the top-level one; a `resources` inside run: is not the key', () => {
    const text = 'resources:\n  any_of:\n    - accelerators: V100:1\n  cloud: aws\nrun: |\n  resources: no\n';
    assert.equal(set(text, 'T4:1'), 'resources:\n  accelerators: T4:1\n  any_of:\n    - accelerators: V100:1\n  cloud: aws\nrun: |\n  resources: no\n');
  });

  it('refuses what it cannot edit safely: pipelines, aliases, non-mappings; bad names and counts', () => {
    for (const text of ['name: a\n---\nrun: x\n---\nrun: y\n', 'resources: *base\nrun: x\n', 'resources: [1]\nrun: x\n']) {
      const r = acceleratorsEdit(text, 'T4:1');
      assert.ok(!r.ok, text);
    }
    assert.ok(acceleratorsEdit('---\nresources:\n  cloud: aws\n', 'T4:1').ok, 'a leading --- is one document');
    assert.equal(acceleratorValue('A100-80GB', 8), 'A100-80GB:8');
    assert.equal(acceleratorValue('L4', 0.5), 'L4:0.5');
    for (const [n, c] of [['x y', 1], ['$(rm -rf ~)', 1], ['A100\n', 1], ['T4', 0], ['T4', Number.NaN], ["'", 1]] as const) {
      assert.equal(acceleratorValue(n, c), undefined, JSON.stringify([n, c]));
    }
  });
});

describe('task YAML: set accelerators on hostile input', () => {
  it('a large file with many markers and brackets is handled in one pass (no quadratic scan)', () => {
    const big = `${'# c\n'.repeat(50_000)}resources: {cpus: 4, labels: {a: "}{"}}\n${'---\n'.repeat(20_000)}`;
    const r = acceleratorsEdit(big, 'T4:1');
    assert.ok(r.ok, 'empty documents after the only one with content are no pipeline');
    const unclosed = acceleratorsEdit(`resources: {cpus: 4${' '.repeat(100_000)}\nrun: x\n`, 'T4:1');
    assert.ok(!unclosed.ok && /unclosed/.test(unclosed.why));
  });
});
