import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Writes `data` to `file` so that a crash at any instant leaves either the old or the new
 * content: temp file in the same directory, fsync, rename over, fsync the directory.
 */
export function writeFileAtomic(file: string, data: Uint8Array): void {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.tmp-${process.pid}`);
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    let off = 0;
    while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDir(dir);
}

function fsyncDir(dir: string): void {
  // Directory fsync makes the rename itself durable; not supported on Windows, where rename is.
  if (process.platform === 'win32') return;
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Removes temp files left by writers that were killed mid-save. */
export function removeStaleTemps(file: string): void {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.tmp-`;
  for (const name of safeReaddir(dir)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) {
      fs.rmSync(path.join(dir, name), { force: true });
    }
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

const HAVE_PROC = fs.existsSync('/proc/self');

/** /proc/PID/stat's state and start time (field 22, clock ticks since boot); null when it is gone. */
function procStat(pid: number): { state: string; start: string } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name may hold spaces and parens
    return /^[0-9]+$/.test(rest[19] ?? '') ? { state: rest[0], start: rest[19] } : null;
  } catch {
    return null;
  }
}

/** A zombie is not alive: it ran its exit (holds no lock or file) and waits only to be reaped,
 * which an init that reaps lazily (some VM and container inits) may take seconds to do. */
export function isAlive(pid: number): boolean {
  return isSameProcess(pid, undefined);
}

/** The process's start time: with the pid, it names one process for good (pids are reused, and
 * pid_max is often 32768). Undefined without /proc. */
export function processStart(pid: number): string | undefined {
  return procStat(pid)?.start;
}

/** Alive, and still the process that started at `start` when that is known (not on macOS: no /proc). */
export function isSameProcess(pid: number, start: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!HAVE_PROC) return true;
  const st = procStat(pid);
  return st !== null && st.state !== 'Z' && st.state !== 'X' && (start === undefined || st.start === start);
}

/**
 * writeFileAtomic without holding the thread: the writes and fsyncs run on libuv's pool, so a
 * process that saves often (a controller launching hundreds of clusters) keeps serving
 * meanwhile. Same sequence, same guarantee once it resolves.
 */
export async function writeFileAtomicAsync(file: string, data: Uint8Array): Promise<void> {
  inFlight++;
  try {
    await writeAsync(file, data);
  } finally {
    inFlight--;
  }
}

/** Saves whose I/O is under way: a discrete-event test clock holds time still meanwhile. */
let inFlight = 0;
export function asyncWritesInFlight(): number {
  return inFlight;
}

async function writeAsync(file: string, data: Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.tmp-${process.pid}`);
  const fh = await fs.promises.open(tmp, 'w', 0o600);
  try {
    let off = 0;
    while (off < data.length) off += (await fh.write(data, off, data.length - off)).bytesWritten;
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.promises.rename(tmp, file);
  if (process.platform === 'win32') return;
  const dh = await fs.promises.open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}
