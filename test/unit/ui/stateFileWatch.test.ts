// Issue 19: a `skydeck` CLI call (another process) saving the workspace state refreshes the view
// early; this window's own saves (every reload's queue writes the state) do not set off reloads.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendEvent, StateStore } from '../../../src/core/state';
import { watchStateFile } from '../../../src/ui/stateFileWatch';

/** A harmless write: one event row. */
const note = (message: string) => (db: Parameters<typeof appendEvent>[0]) => appendEvent(db, { kind: 'test', message });

async function until<T>(what: string, f: () => T | undefined): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('issue 19: the state file watch', () => {
  let dir: string;
  const stores: StateStore[] = [];
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'state-watch-')); });
  afterEach(() => {
    for (const s of stores.splice(0)) s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const open = async () => { const s = await StateStore.openWorkspace(dir); stores.push(s); return s; };

  it('issue 19: changedOnDisk is false after this store\'s own saves and reads, true after another process saved', async () => {
    const window = await open();
    const cli = await open();
    assert.equal(window.changedOnDisk(), false);
    await window.write(note('a'));
    assert.equal(window.changedOnDisk(), false, 'our own save is not a change from elsewhere');
    await cli.write(note('b'));
    assert.equal(window.changedOnDisk(), true);
    await window.read(() => undefined);
    assert.equal(window.changedOnDisk(), false, 'once read, the change is seen');
    fs.rmSync(window.file);
    assert.equal(window.changedOnDisk(), true, 'a removed file is a change too');
  });

  it('issue 19: another process\'s save calls back; a check that says "ours" does not', async () => {
    const window = await open();
    const cli = await open();
    const checks: boolean[] = [];
    let changes = 0;
    const watch = watchStateFile(window.file, () => { const c = window.changedOnDisk(); checks.push(c); return c; }, () => {
      changes++;
      void window.read(() => undefined);
    }, 20);
    try {
      await cli.write(note('x'));
      await until('the watch to call back', () => (changes === 1 ? true : undefined));
      // Our own save after that: the watch may look, and must find nothing to do.
      const looks = checks.length;
      await window.write(note('y'));
      await until('the watch to look at our own save', () => (checks.length > looks ? true : undefined));
      assert.equal(changes, 1);
      assert.deepEqual(checks.slice(looks), checks.slice(looks).map(() => false));
    } finally {
      watch.dispose();
    }
  });

  it('our own save still under way when the watch looks is not taken for another process\'s (a CI failure: a reload under load)', async () => {
    const window = await open();
    const cli = await open();
    // A save that has renamed the file but not yet recorded it: what the watch sees under load.
    let saving = true;
    let changes = 0;
    const looks: boolean[] = [];
    const watch = watchStateFile(window.file, () => { const c = window.changedOnDisk(); looks.push(c); return c; }, () => void changes++, 20, () => saving);
    try {
      fs.writeFileSync(path.join(path.dirname(window.file), 'x.tmp'), '');
      fs.renameSync(path.join(path.dirname(window.file), 'x.tmp'), `${window.file}.other`); // another name: no event for the state
      await window.write(note('ours'));
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(looks, [], 'the watch looked while our save was under way');
      saving = false;
      await until('the watch to look once the save is over', () => (looks.length ? true : undefined));
      assert.deepEqual([changes, looks.every((l) => !l)], [0, true]);
      // A reload that raced our save leaves the store without a loaded file: ours is still ours.
      await Promise.all([window.write(note('a')), window.read(() => undefined)]);
      assert.equal(window.changedOnDisk(), false);
      await cli.write(note('theirs'));
      assert.equal(window.changedOnDisk(), true);
    } finally {
      watch.dispose();
    }
  });

  it('issue 19: a folder that cannot be watched or goes away breaks nothing', async () => {
    const w = watchStateFile(path.join(dir, 'no-such-dir', 'state.db'), () => true, () => assert.fail('called'));
    w.dispose();
    const s = await open();
    const w2 = watchStateFile(s.file, () => true, () => undefined);
    fs.rmSync(path.dirname(s.file), { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, 50));
    w2.dispose();
  });
});
