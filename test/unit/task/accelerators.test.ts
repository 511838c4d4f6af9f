import assert from 'node:assert/strict';
import { formatAccelerator, parseAccelerator, parseAccelerators } from '../../../src/core/task';

describe('accelerators', () => {
  it('parses names, counts and fractions', () => {
    assert.deepEqual(parseAccelerator('A100'), { ok: true, value: { name: 'A100', count: 1 } });
    assert.deepEqual(parseAccelerator('A100:8'), { ok: true, value: { name: 'A100', count: 8 } });
    assert.deepEqual(parseAccelerator(' L4 : 0.25 '), { ok: true, value: { name: 'L4', count: 0.25 } });
    assert.deepEqual(parseAccelerator('A100-80GB:4'), { ok: true, value: { name: 'A100-80GB', count: 4 } });
  });

  it('parses memory-based requests', () => {
    assert.deepEqual(parseAccelerator('24GB:2'), { ok: true, value: { name: '24GB', count: 2, memory: { gb: 24, orMore: false } } });
    assert.deepEqual(parseAccelerator('amd:1TB+'), { ok: true, value: { name: 'amd:1TB+', count: 1, memory: { gb: 1024, orMore: true, manufacturer: 'amd' } } });
  });

  it('rejects bad counts and shapes with a reason', () => {
    const problem = (s: string) => {
      const r = parseAccelerator(s);
      assert.equal(r.ok, false, s);
      return r.ok ? '' : r.problem;
    };
    assert.equal(problem('A100:0'), 'must be NAME:COUNT with a positive count, got "A100:0"');
    assert.equal(problem('A100:-1'), 'must be NAME:COUNT with a positive count, got "A100:-1"');
    assert.equal(problem('A100:'), 'must be NAME or NAME:COUNT, got "A100:"');
    assert.equal(problem(':8'), 'must be NAME or NAME:COUNT, got ":8"');
    assert.equal(problem('24GB:1.5'), 'must have a whole-number count after the memory size, got "24GB:1.5"');
    assert.equal(problem('a:b:c:d'), 'must be NAME or NAME:COUNT, got "a:b:c:d"');
  });

  it('normalizes every form to options; list order is a preference, duplicates collapse', () => {
    assert.deepEqual(parseAccelerators('V100:2'), { options: [{ name: 'V100', count: 2 }], ordered: false, problems: [] });
    assert.deepEqual(parseAccelerators({ V100: null, A100: 4 }).options, [{ name: 'V100', count: 1 }, { name: 'A100', count: 4 }]);
    const list = parseAccelerators(['A100', 'V100', 'A100']);
    assert.deepEqual([list.options.map(formatAccelerator), list.ordered], [['A100', 'V100'], true]);
    const bad = parseAccelerators(['A100', 'V100:x']);
    assert.deepEqual(bad.problems.map((p) => p.at), [1]);
  });
});
