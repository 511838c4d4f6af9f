// Issue 19: Python traceback paths in a job's log link to the local file only inside the synced
// workdir; the host checks the real path again before opening.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { linkableRefs, localSourcePath, relativeToWorkdir, tracebackRefs } from '../../../src/ui/logs/traceback';
import { realFileInside } from '../../../src/ui/logs/realInside';
import { isPageMessage } from '../../../src/ui/logs/protocol';

const NODE = '/home/sky/sky_workdir';
const LOCAL = '/ws/proj';

describe('issue 19: traceback links', () => {
  it('issue 19: finds every `File "…", line N` of a line with its offsets', () => {
    const line = '  File "/home/sky/sky_workdir/train.py", line 12, in main';
    assert.deepEqual(tracebackRefs(line), [{ path: '/home/sky/sky_workdir/train.py', line: 12, start: 2, end: line.indexOf(', in') }]);
    assert.equal(tracebackRefs('File "/a.py", line 1 then File "/b.py", line 2').length, 2);
    assert.deepEqual(tracebackRefs('File "/a.py", line 0'), [], 'line 0 is no line');
    assert.deepEqual(tracebackRefs('no traceback here'), []);
  });

  it('issue 19: maps paths inside the node workdir to the local workdir, on either separator', () => {
    assert.equal(localSourcePath(`${NODE}/train.py`, NODE, LOCAL), '/ws/proj/train.py');
    assert.equal(localSourcePath(`${NODE}/pkg/mod.py`, `${NODE}/`, `${LOCAL}/`), '/ws/proj/pkg/mod.py');
    assert.equal(localSourcePath(`${NODE}/pkg/mod.py`, NODE, 'C:\\ws\\proj', '\\'), 'C:\\ws\\proj\\pkg\\mod.py');
  });

  it('issue 19: hostile paths stay plain text: outside, .., ./, //, a prefix look-alike, relative, control characters', () => {
    for (const p of [
      '/usr/lib/python3/json.py', `${NODE}/../.ssh/id_rsa`, `${NODE}/a/../../x.py`, `${NODE}/./x.py`, `${NODE}//x.py`,
      `${NODE}-evil/x.py`, `${NODE}`, `${NODE}/`, 'sky_workdir/x.py', `${NODE}/a\\..\\x.py`, `${NODE}/a\u0000.py`, `${NODE}/a\n.py`,
      `${NODE}/${'a/'.repeat(3000)}x.py`,
    ]) {
      assert.equal(relativeToWorkdir(p, NODE), undefined, p);
      assert.equal(localSourcePath(p, NODE, LOCAL), undefined, p);
    }
    assert.equal(localSourcePath(`${NODE}/C:x.py`, NODE, 'C:\\ws', '\\'), undefined, 'a drive-looking name on Windows');
    assert.equal(localSourcePath(`${NODE}/x.py`, 'relative/dir', LOCAL), undefined, 'a relative node workdir links nothing');
  });

  it('issue 19: quotes, link-ish names and very long lines', () => {
    // A path holding a quote no longer looks like Python's form: nothing is linked.
    assert.deepEqual(linkableRefs(`  File "${NODE}/a"b.py", line 3`, NODE).map((r) => r.path), []);
    // A name that reads like a link listing is just a name; the host checks the real path.
    assert.deepEqual(linkableRefs(`File "${NODE}/x -> ..%2f.py", line 3`, NODE).map((r) => r.path), [`${NODE}/x -> ..%2f.py`]);
    assert.deepEqual(linkableRefs(`${'x'.repeat(20_000)} File "${NODE}/a.py", line 1`, NODE), [], 'a 20 kB line is not scanned');
    const many = Array.from({ length: 200 }, (_, i) => `File "${NODE}/m${i}.py", line ${i + 1}`).join(' ');
    assert.equal(linkableRefs(many, NODE).length, 200);
    assert.deepEqual(linkableRefs(`File "/etc/passwd", line 1 File "${NODE}/ok.py", line 2`, NODE).map((r) => r.path), [`${NODE}/ok.py`]);
  });

  it('issue 19: the host opens only a real file inside the real workdir (a link out of it, a directory, a missing file: nothing)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-'));
    try {
      const wd = path.join(dir, 'wd');
      fs.mkdirSync(path.join(wd, 'pkg'), { recursive: true });
      fs.writeFileSync(path.join(wd, 'pkg', 'mod.py'), 'x = 1\n');
      fs.writeFileSync(path.join(dir, 'secret.txt'), 'no\n');
      fs.symlinkSync(path.join(dir, 'secret.txt'), path.join(wd, 'out.py'));
      fs.symlinkSync(path.join(wd, 'pkg', 'mod.py'), path.join(wd, 'in.py'));
      fs.symlinkSync(wd, path.join(dir, 'wd-link'));
      assert.equal(realFileInside(path.join(wd, 'pkg', 'mod.py'), wd), fs.realpathSync(path.join(wd, 'pkg', 'mod.py')));
      assert.equal(realFileInside(path.join(wd, 'in.py'), wd), fs.realpathSync(path.join(wd, 'pkg', 'mod.py')), 'a link that stays inside');
      assert.equal(realFileInside(path.join(dir, 'wd-link', 'pkg', 'mod.py'), path.join(dir, 'wd-link')), fs.realpathSync(path.join(wd, 'pkg', 'mod.py')));
      assert.equal(realFileInside(path.join(wd, 'out.py'), wd), undefined, 'a link out of the workdir');
      assert.equal(realFileInside(path.join(wd, 'pkg'), wd), undefined, 'a directory');
      assert.equal(realFileInside(path.join(wd, 'nope.py'), wd), undefined, 'a missing file');
      assert.equal(realFileInside(wd, wd), undefined, 'the workdir itself');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('issue 19: the page\'s openSource message is checked at the boundary', () => {
    assert.ok(isPageMessage({ type: 'openSource', path: `${NODE}/a.py`, line: 3 }));
    for (const bad of [
      { type: 'openSource', path: 'a.py', line: 3 }, { type: 'openSource', path: `${NODE}/a.py`, line: 0 },
      { type: 'openSource', path: `${NODE}/a.py`, line: 1.5 }, { type: 'openSource', path: `/${'a'.repeat(5000)}`, line: 1 },
      { type: 'openSource', path: 7, line: 1 }, { type: 'openSource', path: `${NODE}/a.py` },
    ]) assert.equal(isPageMessage(bad), false, JSON.stringify(bad).slice(0, 80));
  });
});
