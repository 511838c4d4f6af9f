import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { skydeckHome } from './home';
import { isSameProcess, processStart } from '../state/atomicWrite';

// Which Skydeck windows are open (issue 20's "closing the last window"): each window's extension
// host keeps a small lease file under <skydeck home>/windows/, renewed on a timer and removed when
// it deactivates. VS Code has no event for "another window closed", so a window learns it is the
// last one by seeing every other lease go. A window that crashed leaves its file behind; a lease
// counts only while its process lives (pid + its start time, so a reused pid does not count) and
// its renewal is recent. Anyone running as this user can write the directory: every file is checked.

export interface WindowLease {
  version: 1;
  pid: number;
  /** The process's start time as /proc/<pid>/stat gives it (clock ticks after boot); absent off Linux. */
  procStart?: string;
  hostname: string;
  startedAt: number;
  renewedAt: number;
}

/** A lease not renewed for this long no longer counts, whatever its pid says. */
export const LEASE_STALE_MS = 90_000;
/** How often a window renews its lease and looks at the others (the UI's timer). */
export const LEASE_RENEW_MS = 30_000;
const MAX_FILES = 200;
const MAX_BYTES = 4096;
const NAME = /^([0-9]{1,10})-([0-9]{1,16})\.json$/;

export function windowsDir(home = skydeckHome()): string {
  return path.join(home, 'windows');
}

function leaseFile(home: string, l: Pick<WindowLease, 'pid' | 'startedAt'>): string {
  return path.join(windowsDir(home), `${l.pid}-${l.startedAt}.json`);
}

/** This process's lease, new (startedAt = now). */
export function ownLease(now: number): WindowLease {
  const procStart = processStart(process.pid);
  return { version: 1, pid: process.pid, ...(procStart ? { procStart } : {}), hostname: os.hostname(), startedAt: now, renewedAt: now };
}

/** Writes (or renews) the lease: a whole file renamed into place. */
export function writeLease(lease: WindowLease, home = skydeckHome()): void {
  fs.mkdirSync(windowsDir(home), { recursive: true, mode: 0o700 });
  const file = leaseFile(home, lease);
  const tmp = `${file}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(lease), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export function removeLease(lease: Pick<WindowLease, 'pid' | 'startedAt'>, home = skydeckHome()): void {
  fs.rmSync(leaseFile(home, lease), { force: true });
}

/** The lease, or why it is refused. */
export function checkLease(x: unknown): WindowLease | string {
  if (!x || typeof x !== 'object') return 'not an object';
  const l = x as Record<string, unknown>;
  const int = (v: unknown, max: number) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= max;
  if (l.version !== 1) return 'unknown version';
  if (!int(l.pid, 2 ** 31) || (l.pid as number) < 1) return 'bad pid';
  if (l.procStart !== undefined && (typeof l.procStart !== 'string' || !/^[0-9]{1,20}$/.test(l.procStart))) return 'bad process start';
  if (typeof l.hostname !== 'string' || l.hostname.length > 255) return 'bad hostname';
  if (!int(l.startedAt, 1e14) || !int(l.renewedAt, 1e14)) return 'bad times';
  return { version: 1, pid: l.pid as number, ...(l.procStart ? { procStart: l.procStart as string } : {}), hostname: l.hostname, startedAt: l.startedAt as number, renewedAt: l.renewedAt as number };
}

export interface LeaseCheck {
  /** Is the process alive, and is it the one that wrote the lease? */
  alive(l: WindowLease): boolean;
}

/** On this host: the pid lives and, where /proc tells, started when the lease says. Another host's lease lives by its renewal alone. */
export const processCheck: LeaseCheck = {
  alive: (l) => l.hostname !== os.hostname() || isSameProcess(l.pid, l.procStart),
};

export interface LeaseRead {
  live: WindowLease[];
  /** Files that are not live leases: ill-formed, stale, or of a process that is gone. */
  dead: { file: string; why: string }[];
}

/** Every live lease but `self`'s. */
export function otherWindows(self: Pick<WindowLease, 'pid' | 'startedAt'> | undefined, now: number, home = skydeckHome(), check: LeaseCheck = processCheck): LeaseRead {
  let names: string[];
  try {
    names = fs.readdirSync(windowsDir(home)).slice(0, MAX_FILES);
  } catch {
    return { live: [], dead: [] };
  }
  const out: LeaseRead = { live: [], dead: [] };
  for (const n of names) {
    const m = NAME.exec(n);
    if (!m) continue; // temporary files and anything else
    if (self && n === `${self.pid}-${self.startedAt}.json`) continue;
    const file = path.join(windowsDir(home), n);
    const why = (() => {
      try {
        const st = fs.lstatSync(file);
        if (!st.isFile()) return 'not a regular file';
        if (st.size > MAX_BYTES) return 'too large';
        const l = checkLease(JSON.parse(fs.readFileSync(file, 'utf8')));
        if (typeof l === 'string') return l;
        if (String(l.pid) !== m[1] || String(l.startedAt) !== m[2]) return 'its name is not its pid and start';
        if (!check.alive(l)) return 'its process is gone';
        if (now - l.renewedAt > LEASE_STALE_MS) return 'stale';
        // A forged or far-skewed time would keep a lease alive for ever.
        if (l.renewedAt - now > LEASE_STALE_MS) return 'renewed in the future';
        out.live.push(l);
        return undefined;
      } catch (e) {
        return (e as Error).message;
      }
    })();
    if (why) out.dead.push({ file, why });
  }
  return out;
}

/** Removes files whose process is gone or that are ill-formed (a stale but live window renews its own). */
export function sweepDead(read: LeaseRead): void {
  for (const d of read.dead) if (d.why !== 'stale') fs.rmSync(d.file, { force: true });
}
