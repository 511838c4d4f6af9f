// Launch/Exec's questions for a task's empty envs and secrets (src/core/task/emptyValues.ts,
// src/ui/commands/support/valuePlan.ts): which keys, what each box says, what the answers become.
import assert from 'node:assert/strict';
import { parseTaskText } from '../../../src/core/task';
import { emptyValues } from '../../../src/core/task/emptyValues';
import { applyAnswers, promptPlan } from '../../../src/ui/commands/support/valuePlan';

const tasksOf = (yaml: string) => {
  const p = parseTaskText(yaml, 'task.yaml');
  assert.ok(p.ok, JSON.stringify(p.diagnostics));
  return p.tasks;
};

describe('empty envs and secrets: what Launch asks for', () => {
  it('lists null and "" entries of envs and secrets, envs first, in file order; set values are not asked', () => {
    const e = emptyValues(tasksOf('run: x\nenvs:\n  B: null\n  SET: v\n  A: ""\n  N: 0\nsecrets:\n  HF_TOKEN:\n  KEPT: abc\n  EMPTY_S: ""\n'));
    assert.deepEqual(e, [
      { name: 'B', secret: false, alsoEnv: true, written: null },
      { name: 'A', secret: false, alsoEnv: false, written: '' },
      { name: 'HF_TOKEN', secret: true, alsoEnv: false, written: null },
      { name: 'EMPTY_S', secret: true, alsoEnv: false, written: '' },
    ]);
  });

  it('a name both in envs and secrets is asked once, as a secret that the envs need too', () => {
    const e = emptyValues(tasksOf('run: x\nenvs: {K: null}\nsecrets: {K: null}\n'));
    assert.deepEqual(e, [{ name: 'K', secret: true, alsoEnv: true, written: null }]);
  });

  it('a pipeline asks the union once per name; the list form of secrets (no variable) is not asked', () => {
    const e = emptyValues(tasksOf('name: p\n---\nrun: a\nenvs: {X: ""}\n---\nrun: b\nenvs: {X: null, Y: null}\n'));
    assert.deepEqual(e.map((v) => [v.name, v.written]), [['X', null], ['Y', null]]);
    assert.deepEqual(emptyValues(tasksOf('run: x\nsecrets: [secrets:HF]\n')), []);
  });

  it('a task with nothing empty asks nothing', () => {
    assert.deepEqual(emptyValues(tasksOf('run: x\nenvs: {A: 1}\nsecrets: {S: s}\n')), []);
  });
});

describe('the prompt plan', () => {
  const empty = emptyValues(tasksOf('run: x\nenvs: {REGION: null, TAG: ""}\nsecrets: {HF_TOKEN: null, OLD: null}\n'));

  it('one box each, naming the key and the file; secrets as passwords, never pre-filled; envs offer the last answer', () => {
    const plan = promptPlan(empty, 'dir/train.sky.yaml', { REGION: 'eu', HF_TOKEN: 'must-not-show' }, new Set(['OLD']));
    assert.equal(plan.length, 4);
    for (const p of plan) {
      assert.match(p.title, new RegExp(`${p.name} for dir/train\\.sky\\.yaml \\(\\d/4\\)`));
      assert.equal(p.password, p.secret);
    }
    assert.deepEqual(plan.map((p) => [p.name, p.value, p.useStored, p.required]), [
      ['REGION', 'eu', false, false], ['TAG', '', false, false], ['HF_TOKEN', '', false, true], ['OLD', '', true, false],
    ]);
    assert.match(plan[3].prompt, /Enter to use the stored value/);
    assert.match(plan[2].prompt, /secret storage/);
    assert.ok(!plan.some((p) => p.prompt.includes('must-not-show') || p.value.includes('must-not-show')));
  });

  it('quotes a hostile file name as visible escapes', () => {
    const [p] = promptPlan(empty.slice(0, 1), 'a\u001b[31m\nb.yaml', {}, new Set());
    assert.ok(!/[\u0000-\u001f]/.test(p.title + p.prompt), p.title);
  });

  it('says who else keeps the values (managed jobs)', () => {
    const [p] = promptPlan(empty.slice(2, 3), 't.yaml', {}, new Set(), 'the controller keeps it');
    assert.match(p.prompt, /Also: the controller keeps it\./);
  });

  it('answers: envs remembered, new secrets stored, an empty answer takes the stored secret, which is not stored again', async () => {
    const plan = promptPlan(empty, 't.yaml', {}, new Set(['OLD']));
    const asked: string[] = [];
    const got = await applyAnswers(plan, ['us', '', 's3cr$t "x"\n', ''], async (n) => (asked.push(n), n === 'OLD' ? 'kept-old' : undefined));
    assert.deepEqual(got.envs, { REGION: 'us', TAG: '' });
    assert.deepEqual(got.remember, { REGION: 'us', TAG: '' });
    assert.deepEqual(got.secrets, { HF_TOKEN: 's3cr$t "x"\n', OLD: 'kept-old' });
    assert.deepEqual(got.store, { HF_TOKEN: 's3cr$t "x"\n' });
    assert.deepEqual(asked, ['OLD']);
  });

  it('a stored secret that vanished meanwhile is an error naming it, not an empty value', async () => {
    const plan = promptPlan(empty.slice(3), 't.yaml', {}, new Set(['OLD']));
    await assert.rejects(applyAnswers(plan, [''], async () => undefined), /stored value of secret OLD is gone/);
  });

  it('a secret also declared as an empty env goes to both (the parser needs the env), "__proto__" stays a plain key', async () => {
    const plan = promptPlan(emptyValues(tasksOf('run: x\nenvs: {K: null, __proto__: null}\nsecrets: {K: null}\n')), 't.yaml', {}, new Set());
    const got = await applyAnswers(plan, ['v', 'p'], async () => undefined);
    assert.deepEqual(Object.keys(got.envs).sort(), ['K', '__proto__']);
    assert.equal(got.envs.K, 'v');
    assert.equal(got.secrets.K, 'v');
    assert.equal(Object.getPrototypeOf(got.envs), Object.prototype);
  });
});
