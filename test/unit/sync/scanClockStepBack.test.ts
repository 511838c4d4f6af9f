// Review (hostile): the in-process scan memo (fastScan.ts) trusts find -newerct since the last
// scan's start by the wall clock, with no check that the wall clock did not step back since
// (an NTP step, chrony makestep after a VM resume, a user's `date -s`). The memo file of another
// process is refused in that case (scanMemoFile.ts noStepBack), the in-memory one of a long-lived
// process (the VS Code extension) is not: an edit made after the step has a ctime before the
// memo's start, find does not list it, and the scan returns the file's old entry, so the sync
// sends nothing and the job runs the old file. The same trust now also keeps racy hashes
// (settledSince, 061fcc8).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { forgetScanMemos, scanWorkdirFast } from '../../../src/core/sync/fastScan';
import { syncWorkdir } from '../../../src/core/ops/syncFiles';
import { createLocalTransport } from '../../../src/core/transport/localTransport';

/** Written for the Linux scan (find -newerct); elsewhere each test says loudly that it skips. */
function needLinux(ctx: Mocha.Context): void {
  if (process.platform === 'linux') return;
  console.error(`      !!! SKIPPING "${ctx.test?.title}": the clock step-back tests are written for Linux (this is ${process.platform})`);
  ctx.skip();
}

/** Runs `f` while the wall clock reads `aheadMs` later than it is (then it steps back). */
async function withClockAhead<T>(aheadMs: number, f: () => Promise<T>): Promise<T> {
  const real = Date.now;
  Date.now = () => real() + aheadMs;
  try {
    return await f();
  } finally {
    Date.now = real;
  }
}

function tree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-stepback-'));
  fs.mkdirSync(path.join(root, 'd'));
  for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(root, 'd', `f${i}`), `content ${i}\n`);
  return root;
}

describe('sync scan: the wall clock stepped back since the last scan in this process (review)', () => {
  afterEach(() => forgetScanMemos());

  it('an edit after the step (other size) is seen by the next scan', async function () {
    needLinux(this);
    const root = tree();
    await withClockAhead(60_000, () => scanWorkdirFast(root, '', new Map()));
    // The clock is back (stepped 60 s back); the user edits a file.
    fs.writeFileSync(path.join(root, 'd', 'f1'), 'a longer edited content\n');
    const second = await scanWorkdirFast(root, '', new Map());
    const f1 = second.find((e) => e.p === 'd/f1')!;
    assert.equal(f1.s, fs.statSync(path.join(root, 'd', 'f1')).size, 'the scan saw the edit');
  });

  it('the edited file reaches the node', async function () {
    needLinux(this);
    const src = tree();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-stepback-node-'));
    const dst = path.join(root, 'wd');
    const state = { nodeStateDir: path.join(root, 'base', 'sync'), localStateDir: path.join(root, 'ws', '.skydeck', 'sync') };
    const t = createLocalTransport({});
    await withClockAhead(60_000, () => syncWorkdir(t, 'python3', src, dst, state));
    assert.equal(fs.readFileSync(path.join(dst, 'd', 'f1'), 'utf8'), 'content 1\n');
    fs.writeFileSync(path.join(src, 'd', 'f1'), 'a longer edited content\n');
    await syncWorkdir(t, 'python3', src, dst, state);
    assert.equal(fs.readFileSync(path.join(dst, 'd', 'f1'), 'utf8'), 'a longer edited content\n', 'the node holds the edit');
  });
});
