import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Every byte a panel has received, in a temp file rather than in memory: a job may print
 * gigabytes, and the panel needs them all for Save and for replaying into a page that VS Code
 * recreated (a hidden webview loses its content). Writes and reads are synchronous: they hit
 * the page cache, take microseconds per batch, and keep ordering trivial.
 */
export class LogSpool {
  private readonly dir: string;
  private readonly file: string;
  private fd: number | undefined;
  private length = 0;

  constructor(parentDir = os.tmpdir()) {
    this.dir = fs.mkdtempSync(path.join(parentDir, 'skydeck-log-'));
    this.file = path.join(this.dir, 'output.log');
    this.fd = fs.openSync(this.file, 'w+', 0o600);
  }

  /** Bytes held, which is also the log offset of the next byte (the spool starts at offset 0). */
  get size(): number {
    return this.length;
  }

  get disposed(): boolean {
    return this.fd === undefined;
  }

  append(data: Uint8Array): void {
    if (this.fd === undefined || data.length === 0) return;
    let done = 0;
    while (done < data.length) done += fs.writeSync(this.fd, data, done, data.length - done, this.length + done);
    this.length += data.length;
  }

  /** Up to `max` bytes from `offset`. */
  read(offset: number, max: number): Buffer {
    const n = Math.max(0, Math.min(max, this.length - offset));
    const buf = Buffer.allocUnsafe(n);
    if (this.fd === undefined || n === 0) return buf.subarray(0, 0);
    let done = 0;
    while (done < n) {
      const r = fs.readSync(this.fd, buf, done, n - done, offset + done);
      if (r === 0) break;
      done += r;
    }
    return buf.subarray(0, done);
  }

  /**
   * The offset of the first line starting at or after `offset`, so a replay that skips old output
   * begins on a clean line; `offset` itself if no newline comes within `scan` bytes.
   */
  lineStartFrom(offset: number, scan = 64 * 1024): number {
    if (offset <= 0) return 0;
    const head = this.read(offset - 1, scan + 1);
    const nl = head.indexOf(0x0a);
    return nl < 0 ? offset : offset - 1 + nl + 1;
  }

  /**
   * Where the last `lines` lines begin: the offset just after the `lines`-th newline from the
   * end (the text after the final newline counts as a line of its own). Looks back at most
   * `maxBytes`; with too few newlines in that stretch, the first line start within it.
   */
  startOfLastLines(lines: number, maxBytes: number, block = 256 * 1024): number {
    const floor = Math.max(0, this.length - maxBytes);
    let end = this.length;
    let left = lines;
    while (end > floor) {
      const at = Math.max(floor, end - block);
      const buf = this.read(at, end - at);
      for (let i = buf.lastIndexOf(0x0a); i >= 0; i = i > 0 ? buf.lastIndexOf(0x0a, i - 1) : -1) {
        if (--left === 0) return at + i + 1;
      }
      end = at;
    }
    return floor === 0 ? 0 : this.lineStartFrom(floor);
  }

  /** Writes the bytes received so far to `target`; returns how many. */
  async copyTo(target: string): Promise<number> {
    const n = this.length;
    await fs.promises.copyFile(this.file, target);
    // Bytes appended during the copy may have come along: keep exactly what was received at the call.
    await fs.promises.truncate(target, n);
    return n;
  }

  dispose(): void {
    if (this.fd === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
