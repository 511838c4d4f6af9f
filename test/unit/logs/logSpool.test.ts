import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LogSpool } from '../../../src/ui/logs/logSpool';

describe('LogSpool', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-test-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps every byte in order and reads by offset', () => {
    const s = new LogSpool(dir);
    s.append(Buffer.from('hello '));
    s.append(Buffer.from([0xe2, 0x82])); // a UTF-8 sequence split across chunks stays bytes
    s.append(Buffer.from([0xac, 0x0a]));
    assert.equal(s.size, 10);
    assert.equal(s.read(0, 100).toString(), 'hello €\n');
    assert.equal(s.read(6, 3).toString(), '€');
    assert.equal(s.read(10, 5).length, 0);
    s.dispose();
  });

  it('finds the next line start for a replay tail', () => {
    const s = new LogSpool(dir);
    s.append(Buffer.from('aaaa\nbbbb\ncccc'));
    assert.equal(s.lineStartFrom(0), 0);
    assert.equal(s.lineStartFrom(5), 5); // already at a line start
    assert.equal(s.lineStartFrom(6), 10);
    assert.equal(s.lineStartFrom(12), 12); // no newline after: start where asked
    s.dispose();
  });

  it('finds where the last N lines begin, within a byte bound', () => {
    const s = new LogSpool(dir);
    s.append(Buffer.from('aaaa\nbbbb\ncccc\n'));
    // The empty text after the final newline is the last line: "last 2 lines" = "cccc\n" + "".
    assert.equal(s.startOfLastLines(2, 1000), 10);
    assert.equal(s.startOfLastLines(3, 1000), 5);
    assert.equal(s.startOfLastLines(99, 1000), 0); // fewer lines than asked: all of it
    s.append(Buffer.from('dd'));
    assert.equal(s.startOfLastLines(2, 1000), 10); // "cccc\n" + "dd"
    assert.equal(s.startOfLastLines(99, 8), 10); // bound: the first line start in the last 8 bytes
    // Across read blocks: 3,000 numbered lines, 4 KB blocks.
    const t = new LogSpool(dir);
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i}\n`).join('');
    t.append(Buffer.from(lines));
    const at = t.startOfLastLines(1001, 1e9, 4096);
    assert.equal(t.read(at, 20).toString().split('\n')[0], 'line 2000');
    s.dispose();
    t.dispose();
  });

  it('copies exactly the bytes received to a file', async () => {
    const s = new LogSpool(dir);
    const data = Buffer.alloc(3 * 1024 * 1024 + 17, 'x');
    data[5] = 0x1b;
    s.append(data);
    const out = path.join(dir, 'saved.log');
    assert.equal(await s.copyTo(out), data.length);
    assert.ok(fs.readFileSync(out).equals(data));
    s.dispose();
  });

  it('removes its temp file on dispose', () => {
    const s = new LogSpool(dir);
    s.append(Buffer.from('x'));
    assert.equal(fs.readdirSync(dir).length, 1);
    s.dispose();
    assert.deepEqual(fs.readdirSync(dir), []);
    s.append(Buffer.from('late')); // a chunk after close is ignored, not a crash
  });
});
