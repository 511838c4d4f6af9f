// The local controller's log file (its stderr: `<time> controller pid N: managed job 3 …`),
// read back for `jobs logs ID --controller`. Bounded: only its last few MB are read.
import * as fs from 'node:fs';

const TAIL_BYTES = 8 * 1024 * 1024;

/** Lines naming managed job `id` ("managed job 3:" or "managed job 3 (…)", never job 31). */
export function linesAbout(file: string, id: number, tailBytes = TAIL_BYTES): string[] {
  let text: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const start = Math.max(0, size - tailBytes);
      const buf = Buffer.alloc(size - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      text = buf.toString('utf8');
      // A cut first line is dropped: it may name another job's id in part.
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const re = new RegExp(`\\bmanaged job ${id}(?![0-9])`);
  return text.split('\n').filter((l) => re.test(l));
}
