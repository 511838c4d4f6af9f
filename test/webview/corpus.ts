// Realistic job output for replay tests and the benchmark: coloured log lines, tqdm-style
// carriage-return progress bars, and some multi-byte UTF-8.

export function logBlock(size: number, seed = 0): Buffer {
  const parts: string[] = [];
  let n = 0;
  let i = seed;
  while (n < size) {
    let s: string;
    if (i % 50 === 0) {
      // A progress bar redrawn 20 times on one line.
      const bars: string[] = [];
      for (let p = 0; p <= 100; p += 5) bars.push(`\r\x1b[K${String(p).padStart(3)}%|${'█'.repeat(p / 5)}${' '.repeat(20 - p / 5)}| ${p * 10}/1000 [00:${String(p % 60).padStart(2, '0')}<00:30, 33.3it/s]`);
      s = bars.join('') + '\r\n';
    } else if (i % 7 === 0) {
      s = `\x1b[33mWARN\x1b[0m  ${i}: gradient norm ${((i * 7919) % 1000) / 10} exceeds clip — clipping ✂\r\n`;
    } else {
      s = `\x1b[2m2025-01-01 12:00:${String(i % 60).padStart(2, '0')}\x1b[0m \x1b[32mINFO\x1b[0m step=${i} loss=${(1 / (1 + i)).toFixed(6)} lr=3.0e-4 tokens/s=${(i * 37) % 90000}\r\n`;
    }
    parts.push(s);
    n += Buffer.byteLength(s);
    i++;
  }
  return Buffer.from(parts.join(''));
}
