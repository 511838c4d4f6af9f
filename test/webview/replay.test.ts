// Large replays into the page: every byte arrives in order, and the page keeps answering pings.
import assert from 'node:assert/strict';
import { logBlock } from './corpus';
import { usePage } from './fixture';
import { pageReplay } from './pageDriver';
import { floodReplay, hostReplay, percentile } from './replay';

const summary = (r: { bytes: number; seconds: number; mbPerSecond: number; pings: number[] }) =>
  `${(r.bytes / 1048576).toFixed(0)} MB in ${r.seconds.toFixed(1)} s = ${r.mbPerSecond.toFixed(1)} MB/s; ` +
  `ping p50 ${percentile(r.pings, 50).toFixed(0)} ms, p95 ${percentile(r.pings, 95).toFixed(0)} ms, max ${Math.max(...r.pings).toFixed(0)} ms (${r.pings.length} pings)`;

describe('log page: large replays (headless Chromium)', function () {
  this.timeout(300_000);
  const pages = usePage();

  it('100 MB replay: no byte dropped, the page keeps answering pings throughout', async () => {
    const p = await pages.open();
    const blocks = [0, 1, 2, 3].map((seed) => logBlock(256 * 1024, seed * 1000));
    const rounds = Math.ceil((100 * 1024 * 1024) / blocks.reduce((a, b) => a + b.length, 0));
    const r = await pageReplay(p, blocks, rounds);
    console.log(`      ${summary(r)}`);
    assert.ok(r.bytes >= 100 * 1024 * 1024);
    assert.equal(r.written, r.bytes, 'every byte reached the terminal');
    assert.ok(r.checksumOk, 'in order and unchanged');
    assert.ok(r.pings.length >= 10, 'pinged throughout');
    // Ping latency is a figure, not a pass mark: npm run bench:ui-logs reports its p95.
    assert.match((await p.lines()).pop()!, /step=\d+ loss=|WARN|it\/s/);
  });

  it('a job flooding a following panel: the terminal skips ahead to the newest lines, Save keeps every byte', async () => {
    const p = await pages.open();
    const r = await floodReplay(p, 48, 'live');
    console.log(`      48 MB flood: caught up in ${r.seconds.toFixed(1)} s; terminal parsed ${(r.drawnBytes / 1048576).toFixed(1)} MB, skipped ahead ${r.resets - 1} time(s)`);
    assert.ok(r.savedOk, 'Save writes every byte produced');
    assert.ok(r.shownOk, 'since its last skip the terminal got exactly the log up to the end');
    assert.ok(r.resets >= 2 && r.drawnBytes < r.bytes / 4, 'it skipped instead of drawing everything');
    assert.match((await p.lines()).pop()!, /step=\d+ loss=|WARN|it\/s/);
  });

  it('a reloaded page gets only the lines its terminal holds of a 48 MB backlog', async () => {
    const p = await pages.open();
    const r = await floodReplay(p, 48, 'backlog');
    assert.ok(r.savedOk && r.shownOk);
    assert.equal(r.resets, 1);
    const lines = await p.lines();
    // The "not shown" line on top, then the newest 9,999 lines of the log and the cursor's
    // empty row (trimmed here): a scrollback's worth.
    assert.equal(lines.length, 10_000);
    assert.match(lines[0], /of earlier output not shown here; Save… writes the whole log/);
  });

  it('end to end through the host side: 8 MB arrive intact with acks driving the window', async () => {
    const p = await pages.open();
    const r = await hostReplay(p, 8);
    console.log(`      via DevTools: ${summary(r)}`);
    assert.equal(r.written, r.bytes);
    assert.ok(r.checksumOk);
    assert.ok(r.wireBytes <= Math.ceil(r.bytes / 3) * 4 + 64 * 1024, 'base64 on the wire, no resends');
  });
});
