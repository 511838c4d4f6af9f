// Screenshots of the panel for a human to look at: test-output/webview/*.png (gitignored).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { usePage } from './fixture';
import { screenshotPath } from './harness';

const now = Date.now() / 1000;
const TRAINING = [
  '\x1b[1mSkydeck\x1b[0m running \x1b[36mtrain.py\x1b[0m on gpu-box (1x L4)\r\n',
  '\x1b[2m2025-01-01 12:00:01\x1b[0m \x1b[32mINFO\x1b[0m  loading dataset \x1b[4mimagenet-mini\x1b[0m (12,811 images)\r\n',
  ...[5, 25, 50, 75, 100].map((p) => `\r\x1b[KDownloading weights ${String(p).padStart(3)}%|${'█'.repeat(p / 5)}${' '.repeat(20 - p / 5)}| ${p * 4}/400 MB`),
  '\r\n',
  ...Array.from({ length: 8 }, (_, i) => `\x1b[2m2025-01-01 12:0${i + 1}:00\x1b[0m \x1b[32mINFO\x1b[0m  epoch ${i + 1}/8 step=${(i + 1) * 500} loss=${(2.3 / (i + 2)).toFixed(4)} acc=\x1b[1m${(60 + i * 4.2).toFixed(1)}%\x1b[0m\r\n`),
  '\x1b[33mWARN\x1b[0m  gradient norm 14.2 exceeds clip 10.0 — clipping\r\n',
  '\x1b[38;2;255;140;0mcheckpoint\x1b[0m saved to /ckpt/epoch-8.pt\r\n',
  '\x1b[31mTraceback (most recent call last):\x1b[0m\r\n',
  '  File "train.py", line 88, in <module>\r\n',
  '\x1b[1;31mtorch.OutOfMemoryError\x1b[0m: CUDA out of memory. Tried to allocate 2.00 GiB\r\n',
].join('');

describe('log page: screenshots (headless Chromium)', function () {
  this.timeout(30_000);
  const pages = usePage();

  it('finished job: colours, progress bar, status line with exit code and reason', async () => {
    const p = await pages.open({ width: 900, height: 420 });
    await p.write(TRAINING);
    await p.send({ type: 'status', status: { status: 'FAILED', exitCode: 1, reason: 'user code exited 1', startedAt: now - 523, endedAt: now, final: true } });
    await p.send({ type: 'connection', connection: { state: 'ended' } });
    await p.until(`document.querySelector('.status').dataset.kind === 'failed'`);
    await new Promise((r) => setTimeout(r, 100)); // one frame for the renderer
    const file = screenshotPath('log-panel-failed.png');
    await p.page.screenshot({ path: file });
    assert.ok(fs.statSync(file).size > 10_000);
  });

  it('running job: reconnect banner, paused, a search match', async () => {
    const p = await pages.open({ width: 900, height: 420 });
    await p.write(TRAINING.split('\x1b[31mTraceback')[0]);
    await p.send({ type: 'status', status: { status: 'RUNNING', exitCode: null, reason: null, startedAt: now - 187, endedAt: null, final: false } });
    await p.send({ type: 'connection', connection: { state: 'reconnecting', message: 'ssh: connection reset by peer' } });
    await p.page.click('input.find');
    await p.page.keyboard.type('loss');
    await p.page.keyboard.press('Enter');
    await p.until(`document.querySelector('.matches').textContent.includes('of')`);
    await p.page.click('button.follow');
    await new Promise((r) => setTimeout(r, 100));
    const file = screenshotPath('log-panel-running.png');
    await p.page.screenshot({ path: file });
    assert.ok(fs.statSync(file).size > 10_000);
  });
});
