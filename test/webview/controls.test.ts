// The log page's controls in headless Chromium: banner, pause/resume, search, status line, save.
import assert from 'node:assert/strict';
import type { JobStatusView } from '../../src/ui/logs/protocol';
import { usePage } from './fixture';
import type { LogPage } from './harness';

const numbered = (from: number, n: number) => Array.from({ length: n }, (_, i) => `line ${from + i}\r\n`).join('');
const viewport = (p: LogPage) => p.term((t) => ({ y: t.buffer.active.viewportY, base: t.buffer.active.baseY }));
const text = (p: LogPage, selector: string) => p.page.evaluate(`document.querySelector(${JSON.stringify(selector)}).textContent`) as Promise<string>;
const visible = (p: LogPage, selector: string) => p.page.isVisible(selector);

describe('log page: controls (headless Chromium)', function () {
  this.timeout(30_000);
  const pages = usePage();

  it('shows the reconnect banner while the connection is down and hides it after', async () => {
    const p = await pages.open();
    await p.write('before drop\r\n');
    assert.equal(await visible(p, '.banner'), false);
    await p.send({ type: 'connection', connection: { state: 'reconnecting', message: 'ECONNRESET' } });
    await p.until(`!document.querySelector('.banner').hidden`);
    assert.match(await text(p, '.banner'), /reconnecting…/);
    assert.equal(await visible(p, '.banner button'), false, 'no Retry while reconnecting by itself');
    await p.send({ type: 'connection', connection: { state: 'live' } });
    await p.until(`document.querySelector('.banner').hidden`);
    assert.equal(await visible(p, '.banner'), false);
  });

  it('offers Retry when following stopped, and posts retry', async () => {
    const p = await pages.open();
    await p.write('x\r\n');
    await p.send({ type: 'connection', connection: { state: 'stopped', message: 'host key changed' } });
    await p.until(`!document.querySelector('.banner').hidden`);
    assert.match(await text(p, '.banner'), /Not following: host key changed/);
    await p.page.click('.banner button');
    await p.waitFor((m) => m.type === 'retry');
  });

  it('pauses following (the view holds still) and resumes at the end', async () => {
    const p = await pages.open();
    await p.write(numbered(0, 100));
    let v = await viewport(p);
    assert.equal(v.y, v.base, 'follows by default');
    await p.page.click('button.follow');
    assert.equal(await text(p, 'button.follow'), 'Resume');
    const held = (await viewport(p)).y;
    await p.write(numbered(100, 200), 1, false);
    v = await viewport(p);
    assert.equal(v.y, held, 'paused view stays put');
    assert.ok(v.base > held + 150, 'while output keeps arriving');
    assert.match(await text(p, '.status .size'), /paused/);
    await p.page.click('button.follow');
    assert.equal(await text(p, 'button.follow'), 'Pause');
    await p.write(numbered(300, 10), 1, false);
    v = await viewport(p);
    assert.equal(v.y, v.base);
    assert.equal((await p.lines()).pop(), 'line 309');
  });

  it('pauses when the user scrolls up and resumes when they scroll to the end', async () => {
    const p = await pages.open();
    await p.write(numbered(0, 300));
    await p.page.mouse.move(400, 300);
    await p.page.mouse.wheel(0, -600);
    await p.until(`document.querySelector('button.follow').textContent === 'Resume'`);
    const held = (await viewport(p)).y;
    await p.write(numbered(300, 50), 1, false);
    assert.equal((await viewport(p)).y, held);
    // Headless Chromium's wheel events move xterm a few lines each: roll until the end.
    for (let i = 0; i < 60 && (await text(p, 'button.follow')) === 'Resume'; i++) {
      await p.page.mouse.wheel(0, 1000);
      await new Promise((r) => setTimeout(r, 20));
    }
    await p.until(`document.querySelector('button.follow').textContent === 'Pause'`);
    await p.write(numbered(350, 5), 1, false);
    const v = await viewport(p);
    assert.equal(v.y, v.base);
  });

  it('End resumes following', async () => {
    const p = await pages.open();
    await p.write(numbered(0, 300));
    await p.page.click('button.follow');
    await p.write(numbered(300, 50), 1, false);
    await p.page.mouse.click(400, 300);
    await p.page.keyboard.press('End');
    assert.equal(await text(p, 'button.follow'), 'Pause');
    const v = await viewport(p);
    assert.equal(v.y, v.base);
  });

  it('search finds text in the scrollback, counts matches, and reports a miss', async () => {
    const p = await pages.open();
    await p.write(numbered(0, 50) + 'checkpoint saved to /ckpt/needle-42.pt\r\n' + numbered(50, 200) + 'needle-42 again\r\n' + numbered(250, 10));
    await p.page.keyboard.press('Control+f');
    assert.equal(await p.page.evaluate('document.activeElement.className'), 'find');
    await p.page.keyboard.type('needle-42');
    await p.page.keyboard.press('Enter');
    await p.until(`document.querySelector('.matches').textContent.includes('of 2')`);
    assert.equal(await p.term((t) => t.getSelection()), 'needle-42');
    const row = await p.term((t) => t.getSelectionPosition()!.start.y);
    const v = await viewport(p);
    assert.ok(row >= v.y && row < v.y + 30, 'the match is scrolled into view');
    await p.page.fill('input.find', 'no-such-text');
    await p.page.keyboard.press('Enter');
    await p.until(`document.querySelector('.matches').textContent === 'No results'`);
  });

  it('offers a rank selector only for multi-node jobs; picking a rank asks the host for its panel', async () => {
    const p = await pages.open();
    const status = (ranks?: number): JobStatusView => ({ status: 'RUNNING', exitCode: null, reason: null, startedAt: null, endedAt: null, final: false, ...(ranks ? { ranks } : {}) });
    await p.send({ type: 'reset', session: 1, key: { cluster: 'gang', jobId: 3, name: 'ddp', rank: 1 }, from: 0, skipped: 0 });
    await p.send({ type: 'status', status: status() });
    assert.equal(await visible(p, 'select.rank'), false, 'a single-node job has no ranks to pick');
    await p.send({ type: 'status', status: status(3) });
    await p.until(`!document.querySelector('select.rank').hidden`);
    const options = await p.page.evaluate(`[...document.querySelectorAll('select.rank option')].map((o) => o.textContent)`);
    assert.deepEqual(options, ['rank 0 (job log)', 'rank 1', 'rank 2']);
    assert.equal(await p.page.evaluate(`document.querySelector('select.rank').value`), '1', 'shows the panel\'s own rank');
    await p.page.selectOption('select.rank', '2');
    const m = await p.waitFor((x) => x.type === 'openRank');
    assert.deepEqual(m, { type: 'openRank', rank: 2 });
    assert.equal(await p.page.evaluate(`document.querySelector('select.rank').value`), '1', 'this panel stays on its rank');
  });

  it('status line shows state, a ticking duration, exit code and reason', async () => {
    const p = await pages.open();
    const now = Date.now() / 1000;
    const status = (s: Partial<JobStatusView>): JobStatusView => ({ status: 'RUNNING', exitCode: null, reason: null, startedAt: now - 65, endedAt: null, final: false, ...s });
    await p.send({ type: 'status', status: status({ status: 'PENDING', startedAt: null }) });
    await p.until(`document.querySelector('.status .state').textContent.includes('PENDING')`);
    await p.send({ type: 'status', status: status({}) });
    await p.until(`document.querySelector('.status').dataset.kind === 'running'`);
    assert.match(await text(p, '.status .detail'), /^1m 0[5-7]s$/);
    await p.until(`/^1m 0[6-9]s$/.test(document.querySelector('.status .detail').textContent)`, 5000); // ticks
    await p.send({ type: 'status', status: status({ status: 'FAILED', exitCode: 3, reason: 'CUDA out of memory', endedAt: now, final: true }) });
    await p.until(`document.querySelector('.status').dataset.kind === 'failed'`);
    assert.equal(await text(p, '.status .state'), '✗ FAILED');
    assert.equal(await text(p, '.status .detail'), '1m 05s · exit code 3 · CUDA out of memory');
    await p.write(Buffer.alloc(1536, 'x'));
    assert.equal(await text(p, '.status .size'), '1.5 KB');
  });

  it('Save posts save to the host', async () => {
    const p = await pages.open();
    await p.page.click('button.save');
    await p.waitFor((m) => m.type === 'save');
  });

  it('answers ping with pong', async () => {
    const p = await pages.open();
    await p.send({ type: 'ping', id: 41 });
    await p.waitFor((m) => m.type === 'pong' && m.id === 41);
  });
});
