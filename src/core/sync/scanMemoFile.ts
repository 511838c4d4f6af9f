// What the local scan of the last committed sync knew (fastScan.ts), kept beside its manifest
// as `<manifest>.scan`, so a new process (every CLI exec) can re-stat only the files changed
// since that scan instead of walking the tree. It is workspace data, so it is checked when read
// and trusted only for the manifest file it was written with (that file's identity: device,
// inode, size, mtime and ctime, which no rewrite keeps), in the boot it was written in, and
// while the wall clock kept pace with the boot clock (a clock stepped back makes -newerct miss
// changes). It can only make a scan re-stat less, never make a sync touch more: a delta still
// needs the node's token.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface ScanMemo {
  /** When the scan started (ms since the epoch). */
  startedMs: number;
  /** Directories the scan's ignore rules pruned (relative paths). */
  pruned: string[];
  /** The ignore files the scan read, joined (fastScan.ts compares it). */
  rulesKey: string;
  ignored: number;
}

interface Stored extends ScanMemo {
  v: 1;
  /** Which walk and ignore rules made it: a memo of an older Skydeck is not used. */
  walk: number;
  manifest: string;
  boot: string;
  /** When it was written, by the wall clock and by the boot clock (/proc/uptime). */
  writtenMs: number;
  uptimeMs: number;
}

/** Raise when the walk (workdirWalk.ts) or the ignore rules (ignoreRules.ts) change what they keep. */
const WALK_VERSION = 1;

const MAX_BYTES = 8 * 1024 * 1024;
let writes = 0;

/** The boot clock (counts suspend too), in ms; undefined where there is none. */
function uptimeMs(): number | undefined {
  try {
    const s = Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    return Number.isFinite(s) && s > 0 ? s * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The wall clock did not step back since the memo was written (an NTP step, a user's date
 * command): ctimes written after such a step may fall before the memo's scan and be missed.
 * A slew (at most 500 ppm) is allowed for; a step smaller than that over a long time is not seen.
 */
function noStepBack(s: Stored, now: number): boolean {
  const up = uptimeMs();
  if (up === undefined || !(s.uptimeMs > 0) || !(s.writtenMs >= s.startedMs)) return false;
  const boot = up - s.uptimeMs;
  return boot >= 0 && now - s.writtenMs >= boot - (100 + boot * 0.0005);
}

function bootId(): string {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

export function writeScanMemo(manifestFile: string, manifestId: string, m: ScanMemo): void {
  const boot = bootId();
  const up = uptimeMs();
  if (!boot || up === undefined) return; // not Linux: nothing a later process could trust
  const s: Stored = { v: 1, walk: WALK_VERSION, manifest: manifestId, boot, writtenMs: Date.now(), uptimeMs: up, ...m };
  // Whole or absent (temp + rename); not fsynced, like the manifest: lost, the next scan walks.
  const file = `${manifestFile}.scan`;
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}-${++writes}`);
  try {
    fs.writeFileSync(tmp, JSON.stringify(s), { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true }); // a memo is an optimisation: never fail the sync over it
  }
}

/** The memo kept for the manifest file whose identity is `manifestId`, or undefined. */
export function readScanMemo(manifestFile: string, manifestId: string, now = Date.now()): ScanMemo | undefined {
  let raw: unknown;
  try {
    const st = fs.lstatSync(`${manifestFile}.scan`);
    if (!st.isFile() || st.size > MAX_BYTES) return undefined;
    raw = JSON.parse(fs.readFileSync(`${manifestFile}.scan`, 'utf8'));
  } catch {
    return undefined;
  }
  const s = raw as Partial<Stored>;
  const boot = bootId();
  if (!s || typeof s !== 'object' || s.v !== 1 || s.walk !== WALK_VERSION || s.manifest !== manifestId || !boot || s.boot !== boot) return undefined;
  if (typeof s.writtenMs !== 'number' || typeof s.uptimeMs !== 'number' || !noStepBack(s as Stored, now)) return undefined;
  const { startedMs, pruned, rulesKey, ignored } = s;
  if (typeof startedMs !== 'number' || !Number.isFinite(startedMs) || startedMs <= 0 || startedMs > now) return undefined;
  if (!Array.isArray(pruned) || !pruned.every((p) => typeof p === 'string' && p.length > 0 && !p.includes('\0'))) return undefined;
  if (typeof rulesKey !== 'string' || !Number.isInteger(ignored) || (ignored as number) < 0) return undefined;
  return { startedMs, pruned: pruned as string[], rulesKey, ignored: ignored as number };
}
