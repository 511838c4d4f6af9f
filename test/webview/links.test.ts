// Issue 13.9: hyperlinks (OSC 8) in job output, clicked in the log page (headless Chromium).
import assert from 'node:assert/strict';
import { usePage } from './fixture';
import type { LogPage } from './harness';

const osc8 = (url: string, text: string) => `\x1b]8;;${url}\x07${text}\x1b]8;;\x07`;

/** Hovers, then clicks the cell at (col, row) of the terminal's screen. */
async function clickCell(p: LogPage, col: number, row: number): Promise<void> {
  const box = await p.page.evaluate(`(() => {
    const r = document.querySelector('.xterm-screen').getBoundingClientRect();
    const t = window.__app.view.term;
    return { x: r.left, y: r.top, w: r.width / t.cols, h: r.height / t.rows };
  })()`) as { x: number; y: number; w: number; h: number };
  const x = box.x + (col + 0.5) * box.w;
  const y = box.y + (row + 0.5) * box.h;
  await p.page.mouse.move(x - box.w, y);
  await p.page.mouse.move(x, y, { steps: 3 });
  await p.page.waitForTimeout(100); // xterm resolves the link under the pointer asynchronously
  await p.page.mouse.click(x, y);
}

describe('issue 13.9: links in job output (headless Chromium)', function () {
  this.timeout(30_000);
  const pages = usePage();

  it('issue 13.9: command: and file: links are never opened; an https link only posts openLink to the host', async () => {
    const p = await pages.open();
    const dialogs: string[] = [];
    const popups: string[] = [];
    p.page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
    p.page.context().on('page', (pg) => popups.push(pg.url()));
    await p.write([
      osc8('command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22id%5Cn%22%7D', 'run-me'),
      osc8('file:///etc/passwd', 'a-file'),
      osc8('vscode://skydeck/x', 'vscode-uri'),
      osc8('https://example.com/report?x=1', 'the-report'),
    ].join('\r\n') + '\r\n');
    for (const row of [0, 1, 2]) await clickCell(p, 2, row);
    await clickCell(p, 2, 3);
    const link = await p.waitFor((m) => m.type === 'openLink');
    assert.deepEqual(link, { type: 'openLink', url: 'https://example.com/report?x=1' });
    assert.deepEqual(p.posted.filter((m) => m.type === 'openLink'), [link], 'nothing posted for the other schemes');
    assert.deepEqual(dialogs, [], 'the page itself asks nothing (the host does)');
    assert.deepEqual(popups, [], 'the page opens no window');
  });

  it('issue 19: a traceback path inside the job\'s workdir is a link that posts openSource; one outside it stays text', async () => {
    const p = await pages.open();
    await p.send({ type: 'sourceRoot', nodeDir: '/home/sky/sky_workdir' });
    await p.write([
      '  File "/usr/lib/python3.11/json/decoder.py", line 337, in decode',
      '  File "/home/sky/sky_workdir/../.bashrc", line 1, in <module>',
      '  File "/home/sky/sky_workdir/train.py", line 12, in main',
    ].join('\r\n') + '\r\n');
    for (const row of [0, 1]) await clickCell(p, 10, row);
    await clickCell(p, 10, 2);
    const opened = await p.waitFor((m) => m.type === 'openSource');
    assert.deepEqual(opened, { type: 'openSource', path: '/home/sky/sky_workdir/train.py', line: 12 });
    assert.deepEqual(p.posted.filter((m) => m.type === 'openSource'), [opened], 'the paths outside the workdir posted nothing');
  });
});
