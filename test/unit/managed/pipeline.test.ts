import assert from 'node:assert/strict';
import { splitPipeline } from '../../../src/core/managed';

describe('managed jobs: a multi-document YAML cut into its tasks', () => {
  it('one task stays one; empty documents are dropped', () => {
    assert.deepEqual(splitPipeline('run: echo a\n'), { tasks: ['run: echo a\n'] });
    assert.deepEqual(splitPipeline('# only a comment\n---\nrun: echo a\n---\n~\n').tasks, ['run: echo a\n']);
  });

  it('a header names the pipeline; markers with content and ... end markers cut exactly', () => {
    const p = splitPipeline('name: p\nexecution: serial\n---\nrun: |\n  echo "--- not a marker"\n...\n--- {run: echo b}\n');
    assert.deepEqual(p, { tasks: ['run: |\n  echo "--- not a marker"\n', '{run: echo b}\n'], name: 'p' });
  });

  it('a first document with more than name/execution is a task, not a header', () => {
    assert.deepEqual(splitPipeline('name: a\nrun: x\n---\nrun: y\n'), { tasks: ['name: a\nrun: x\n', 'run: y\n'] });
  });

  it('execution: parallel is refused with the reason', () => {
    assert.match(splitPipeline('name: p\nexecution: parallel\n---\nrun: a\n---\nrun: b\n').problem ?? '', /run their tasks one after another/);
  });
});
