import assert from 'node:assert/strict';
import { editDistance, nearest } from '../../../src/core/task/suggest';

describe('suggest', () => {
  it('edit distance counts an adjacent swap as one edit', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('nmae', 'name'), 1);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('same', 'same'), 0);
  });

  it('suggests the closest field for likely typos only', () => {
    const fields = ['name', 'num_nodes', 'resources', 'run', 'setup', 'envs', 'file_mounts'];
    assert.equal(nearest('nmae', fields), 'name');
    assert.equal(nearest('resource', fields), 'resources');
    assert.equal(nearest('file-mounts', fields), 'file_mounts');
    assert.equal(nearest('RUN', fields), 'run');
    assert.equal(nearest('env', fields), 'envs');
    assert.equal(nearest('kubernetes', fields), undefined);
    assert.equal(nearest('x', []), undefined);
  });
});
