// The log page alone in headless Chromium: rendering, handshake, state. Every test also fails
// on a page error or a CSP violation (see fixture.ts).
import assert from 'node:assert/strict';
import { usePage } from './fixture';

describe('log page: rendering (headless Chromium)', function () {
  this.timeout(30_000);
  const pages = usePage();

  it('posts ready first and saves the job and offset for the serializer', async () => {
    const p = await pages.open();
    // With how many lines its terminal holds (its scrollback): the host replays no more than that.
    assert.deepEqual(p.posted[0], { type: 'ready', lines: 10_000 });
    await p.write('hello\r\n');
    await p.until('window.__state && window.__state.offset === 7');
    assert.deepEqual(await p.page.evaluate('window.__state'), { v: 1, cluster: 'gpu-box', jobId: 12, name: 'train', offset: 7 });
  });

  it('renders ANSI colours (buffer attributes and painted DOM)', async () => {
    const p = await pages.open();
    await p.write('\x1b[31mRED\x1b[0m \x1b[1;32mBOLDGREEN\x1b[0m \x1b[38;2;255;128;0mORANGE\x1b[0m \x1b[44mONBLUE\x1b[0m plain\r\n');
    const cells = await p.term((t) => {
      const line = t.buffer.active.getLine(0)!;
      const at = (x: number) => {
        const c = line.getCell(x)!;
        return { ch: c.getChars(), fg: c.getFgColor(), pal: c.isFgPalette(), rgb: c.isFgRGB(), bold: c.isBold() !== 0, bg: c.getBgColor(), bgPal: c.isBgPalette(), def: c.isFgDefault() };
      };
      return { red: at(0), green: at(4), orange: at(14), onBlue: at(21), plain: at(28) };
    });
    assert.deepEqual([cells.red.ch, cells.red.fg, cells.red.pal], ['R', 1, true]);
    assert.deepEqual([cells.green.ch, cells.green.fg, cells.green.pal, cells.green.bold], ['B', 2, true, true]);
    assert.deepEqual([cells.orange.ch, cells.orange.fg, cells.orange.rgb], ['O', 0xff8000, true]);
    assert.deepEqual([cells.onBlue.ch, cells.onBlue.bg, cells.onBlue.bgPal], ['O', 4, true]);
    assert.equal(cells.plain.def, true);
    // And what the user sees: the DOM renderer painted those spans in different colours.
    await p.until(`[...document.querySelectorAll('.xterm-rows span')].some((s) => s.textContent === 'RED')`);
    const colour = (text: string) =>
      p.page.evaluate(`getComputedStyle([...document.querySelectorAll('.xterm-rows span')].find((s) => s.textContent === ${JSON.stringify(text)})).color`);
    const [red, green, orange, plain] = await Promise.all(['RED', 'BOLDGREEN', 'ORANGE', ' plain'].map(colour));
    assert.equal(orange, 'rgb(255, 128, 0)');
    assert.notEqual(red, plain);
    assert.notEqual(green, plain);
    assert.notEqual(red, green);
    assert.match(String(red), /^rgb\((\d+), (\d+), (\d+)\)$/);
    const [r, g, b] = String(red).match(/\d+/g)!.map(Number);
    assert.ok(r > 150 && g < 100 && b < 100, `red is red: ${red}`);
  });

  it('overwrites carriage-return progress lines in place', async () => {
    const p = await pages.open();
    await p.write('Downloading  10%\rDownloading  55%\rDownloading 100%\r\n');
    await p.write(' 0%|          | 0/3\r\x1b[K33%|███▍      | 1/3\r\x1b[K100%|██████████| 3/3 done\r\n', 1, false);
    await p.write('epoch 1 ', 1, false);
    await p.write('\rstep 1/2\rstep 2/2 ✓', 1, false);
    assert.deepEqual(await p.lines(), ['Downloading 100%', '100%|██████████| 3/3 done', 'step 2/2 ✓']);
  });

  it('joins a UTF-8 character split across two appends', async () => {
    const p = await pages.open();
    const euro = Buffer.from('price: €5\r\n');
    await p.write(euro.subarray(0, 8)); // splits the 3-byte €
    await p.write(euro.subarray(8), 1, false);
    assert.deepEqual(await p.lines(), ['price: €5']);
  });

  it('reset clears the page and drops appends meant for the page it replaced', async () => {
    const p = await pages.open();
    await p.write('old output\r\n', 1);
    await p.send(
      { type: 'reset', session: 2, key: { cluster: 'gpu-box', jobId: 12 }, from: 1000, skipped: 1000 },
      { type: 'append', session: 1, offset: 12, data: Buffer.from('stale\r\n').toString('base64') },
      { type: 'append', session: 2, offset: 1000, data: Buffer.from('fresh\r\n').toString('base64') },
    );
    await p.waitFor((m) => m.type === 'ack' && m.session === 2);
    const lines = await p.lines();
    assert.match(lines[0], /1000 B of earlier output not shown/);
    assert.deepEqual(lines.slice(1), ['fresh']);
    assert.equal(p.posted.filter((m) => m.type === 'ack' && m.session === 1 && m.offset > 12).length, 0);
  });

  it('runs under the strict CSP: nonce on every style element, terminal laid out', async () => {
    const p = await pages.open();
    await p.write('x\r\n');
    const info = (await p.page.evaluate(`({
      styles: [...document.querySelectorAll('style')].map((s) => !!s.nonce),
      rowHeight: document.querySelector('.xterm-rows > div').getBoundingClientRect().height,
      cols: window.__app.view.term.cols,
      rows: window.__app.view.term.rows,
    })`)) as { styles: boolean[]; rowHeight: number; cols: number; rows: number };
    assert.ok(info.styles.length > 0 && info.styles.every(Boolean), JSON.stringify(info.styles));
    assert.ok(info.rowHeight > 8 && info.rowHeight < 40, `row height ${info.rowHeight}`);
    assert.ok(info.cols > 80 && info.rows > 20, `${info.cols}x${info.rows} fits the 1000x560 viewport`);
  });
});
