// A workspace's .skydeck/local/<name> laid out by a hostile repository: every shape on the
// way that is not a real directory is refused, and the clear never touches where links point.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clearUnownedLocalBase, localBaseDir, localBaseProblem } from '../../../src/core/ops/localBase';

function scratch(): { ws: string; outside: string } {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-lb-'));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-lb-out-'));
  fs.writeFileSync(path.join(outside, 'keep.txt'), 'precious');
  return { ws, outside };
}

describe('localBase: hostile layouts of .skydeck/local/<name>', () => {
  const layouts: Array<[string, (ws: string, outside: string) => void, RegExp]> = [
    ['.skydeck a symlink', (ws, out) => fs.symlinkSync(out, path.join(ws, '.skydeck')), /\.skydeck is a symbolic link/],
    ['.skydeck a dangling symlink', (ws) => fs.symlinkSync('/nonexistent/x', path.join(ws, '.skydeck')), /\.skydeck is a symbolic link \(to "\/nonexistent\/x"\)/],
    ['.skydeck a file', (ws) => fs.writeFileSync(path.join(ws, '.skydeck'), 'x'), /\.skydeck is not a directory/],
    ['.skydeck/local a symlink', (ws, out) => { fs.mkdirSync(path.join(ws, '.skydeck')); fs.symlinkSync(out, path.join(ws, '.skydeck', 'local')); }, /local is a symbolic link/],
    ['the cluster directory a symlink', (ws, out) => { fs.mkdirSync(path.join(ws, '.skydeck', 'local'), { recursive: true }); fs.symlinkSync(out, localBaseDir(ws, 'c')); }, /c is a symbolic link/],
    ['the cluster directory a dangling symlink', (ws, out) => { fs.mkdirSync(path.join(ws, '.skydeck', 'local'), { recursive: true }); fs.symlinkSync(path.join(out, 'gone'), localBaseDir(ws, 'c')); }, /c is a symbolic link/],
    ['the cluster directory a file', (ws) => { fs.mkdirSync(path.join(ws, '.skydeck', 'local'), { recursive: true }); fs.writeFileSync(localBaseDir(ws, 'c'), 'x'); }, /c is not a directory/],
    ['the cluster directory a fifo', (ws) => { fs.mkdirSync(path.join(ws, '.skydeck', 'local'), { recursive: true }); require('node:child_process').execFileSync('mkfifo', [localBaseDir(ws, 'c')]); }, /c is not a directory/],
  ];
  for (const [what, make, why] of layouts) {
    it(`${what}: refused, and the clear deletes nothing`, () => {
      const { ws, outside } = scratch();
      make(ws, outside);
      assert.match(localBaseProblem(ws, 'c') ?? '', why);
      assert.throws(() => clearUnownedLocalBase(ws, 'c'), why);
      assert.deepEqual(fs.readdirSync(outside), ['keep.txt']);
    });
  }

  it('a symlink inside the cluster directory is removed as a link: its target survives the clear', () => {
    const { ws, outside } = scratch();
    const base = localBaseDir(ws, 'c');
    fs.mkdirSync(path.join(base, 'agent'), { recursive: true });
    fs.symlinkSync(outside, path.join(base, 'agent', 'lib'));
    fs.symlinkSync(path.join(outside, 'keep.txt'), path.join(base, 'jobs.db'));
    assert.equal(localBaseProblem(ws, 'c'), undefined);
    assert.equal(clearUnownedLocalBase(ws, 'c'), true);
    assert.ok(!fs.existsSync(base));
    assert.equal(fs.readFileSync(path.join(outside, 'keep.txt'), 'utf8'), 'precious');
  });

  it('nothing there yet: no problem, nothing cleared', () => {
    const { ws } = scratch();
    assert.equal(localBaseProblem(ws, 'c'), undefined);
    assert.equal(clearUnownedLocalBase(ws, 'c'), false);
  });
});
