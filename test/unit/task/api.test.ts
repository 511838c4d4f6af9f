// The exported helpers: formatting, env resolution, candidates, file reading.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Diagnostic, formatDiagnostic, parseTaskFile, parseTaskText, resolveEnvs, resourceCandidates } from '../../../src/core/task';

describe('task API', () => {
  it('formatDiagnostic: file:line:col: severity: message (hint)', () => {
    const d: Diagnostic = {
      severity: 'error', file: 'jobs/train.yaml', line: 3, col: 5, endLine: 3, endCol: 16,
      path: 'resources.acelerators', message: 'unknown field "acelerators" in resources', hint: 'did you mean "accelerators"?',
    };
    assert.equal(formatDiagnostic(d), 'jobs/train.yaml:3:5: error: unknown field "acelerators" in resources (did you mean "accelerators"?)');
    assert.equal(formatDiagnostic({ ...d, severity: 'warning', hint: undefined }), 'jobs/train.yaml:3:5: warning: unknown field "acelerators" in resources');
    const [real] = parseTaskText('resources:\n  cpus: four\n', 'a.yaml').diagnostics;
    assert.equal(formatDiagnostic(real), 'a.yaml:2:9: error: resources.cpus must be a number or "<number>+", got "four" (e.g. cpus: 4 or cpus: 4+)');
  });

  it('uses <input> as the file name when none is given', () => {
    assert.equal(parseTaskText('run: [1]\n').diagnostics[0].file, '<input>');
  });

  it('resolveEnvs: overrides win, may add names, and null envs without a value are missing', () => {
    const [t] = parseTaskText('envs:\n  A: "1"\n  B:\n  C:\n').tasks;
    assert.deepEqual(resolveEnvs(t, { B: 'b', D: 'd' }), { envs: { A: '1', B: 'b', D: 'd' }, missing: ['C'] });
    assert.deepEqual(resolveEnvs(t, { A: 'x', B: '', C: 'c' }), { envs: { A: 'x', B: '', C: 'c' }, missing: [] });
    assert.deepEqual(t.envs, { A: '1', B: null, C: null }, 'the task itself is not changed');
  });

  it('resourceCandidates expands any_of, ordered and several accelerators into single choices', () => {
    const one = (text: string) => resourceCandidates(parseTaskText(text).tasks[0].resources);
    const plain = one('resources:\n  accelerators: A100:8\n');
    assert.deepEqual([plain.ordered, plain.list.map((r) => r.accelerators)], [false, [[{ name: 'A100', count: 8 }]]]);
    const list = one('resources:\n  accelerators: [H100, A100]\n  cloud: aws\n');
    assert.deepEqual([list.ordered, list.list.map((r) => [r.cloud, r.accelerators[0].name])], [true, [['aws', 'H100'], ['aws', 'A100']]]);
    const anyOf = one('resources:\n  accelerators: {V100, T4}\n  any_of:\n    - cloud: aws\n    - cloud: gcp\n');
    assert.deepEqual([anyOf.ordered, anyOf.list.map((r) => `${r.cloud}/${r.accelerators[0].name}`)], [false, ['aws/V100', 'aws/T4', 'gcp/V100', 'gcp/T4']]);
    const ordered = one('resources:\n  ordered:\n    - cloud: gcp\n    - cloud: aws\n');
    assert.deepEqual([ordered.ordered, ordered.list.map((r) => r.cloud)], [true, ['gcp', 'aws']]);
    for (const r of [...plain.list, ...list.list, ...anyOf.list, ...ordered.list]) {
      assert.equal(r.anyOf, undefined);
      assert.equal(r.ordered, undefined);
      assert.ok(r.accelerators.length <= 1);
    }
  });

  it('parseTaskFile reads a file and reports diagnostics against its path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skydeck-task-'));
    try {
      const file = join(dir, 'task.yaml');
      writeFileSync(file, 'name: t\nnum_nodes: 0\n');
      const r = await parseTaskFile(file);
      assert.equal(r.ok, false);
      assert.deepEqual(r.diagnostics.map((d) => [d.file, d.line, d.col]), [[file, 2, 12]]);
      assert.equal(r.tasks[0].name, 't');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('parseTaskFile on a missing file answers with a diagnostic', async () => {
    const r = await parseTaskFile('/nonexistent/skydeck/task.yaml');
    assert.deepEqual(r.tasks, []);
    assert.equal(r.ok, false);
    assert.deepEqual(r.diagnostics.map((d) => [d.file, d.line, d.col, d.message]), [['/nonexistent/skydeck/task.yaml', 1, 1, 'file not found']]);
  });

  it('reports opts.env gaps only when launch values are given', () => {
    assert.equal(parseTaskText('envs: {TOKEN: null}\n').ok, true);
    assert.equal(parseTaskText('envs: {TOKEN: null}\n', 't', { env: {} }).ok, false);
    assert.equal(parseTaskText('envs: {TOKEN: null}\n', 't', { env: { TOKEN: 'x' } }).ok, true);
  });
});
