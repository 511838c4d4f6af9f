// rclone command lines as argv arrays (quoted word by word when they reach a shell). Flags are
// those of rclone 1.60.1 (`rclone copy --help`, `rclone mount --help`, `rclone help flags`).
import { hideMarkerFlags } from './marker';
import type { MountTuning } from './types';

/** Bounds every network wait, so a dead endpoint fails instead of hanging: rclone's defaults
 *  (3 retries x 10 low-level retries with back-off) kept a refused connection going > 60 s. */
const BOUNDED = ['--contimeout', '15s', '--timeout', '60s'];

/**
 * Lists a name that does not exist under the prefix: cheap however large the bucket is, and it
 * still fails on a missing bucket, denied listing, bad credentials or an unreachable endpoint.
 */
export function probeArgv(remotePath: string): string[] {
  return ['rclone', 'lsf', '--max-depth', '1', ...BOUNDED, '--retries', '1', '--low-level-retries', '1',
    `${remotePath}/.skydeck-probe`];
}

/**
 * COPY: parallel transfers for many small files, more checkers than transfers (checking is
 * cheaper than moving), and --fast-list (one recursive listing instead of one per directory;
 * fewer requests on S3/GCS at the cost of memory). A relaunch copies only what changed.
 */
export function copyArgv(remotePath: string, dst: string): string[] {
  return ['rclone', 'copy', remotePath, dst, '--transfers', '16', '--checkers', '32', '--fast-list', ...hideMarkerFlags(remotePath),
    ...BOUNDED, '--retries', '3', '--low-level-retries', '5'];
}

export interface MountArgvOptions {
  cached: boolean;
  /** Per-mount cache directory (MOUNT_CACHED). */
  cacheDir: string;
  logFile: string;
  /** The task's `type:` preset and `config:` (task/mountTuning.ts), already checked. */
  tuning?: MountTuning;
}

/**
 * MOUNT: --vfs-cache-mode off, so a write streams to the bucket and close() returns only once
 * the object is stored: nothing is left to flush when the job ends. (minimal would queue
 * read-write opens for a delayed upload.) MOUNT_CACHED: full cache (reads cached too), uploads
 * start 1 s after the last close. --no-modtime: directory listings need no HEAD per object.
 * No --allow-other: the job runs as the user who mounts. --devname: the mount's source in
 * mountinfo is then exactly the remote path (1.60 otherwise adds a config hash, "skydeck{ab12c}:").
 */
export function mountArgv(remotePath: string, dst: string, o: MountArgvOptions): string[] {
  const t = o.tuning ?? {};
  const mode = o.cached
    ? ['--vfs-cache-mode', 'full', '--vfs-write-back', t.vfs_write_back ?? '1s', '--cache-dir', o.cacheDir]
    : ['--vfs-cache-mode', 'off'];
  return ['rclone', 'mount', remotePath, dst, '--devname', remotePath, ...mode, '--dir-cache-time', '30s', '--no-modtime',
    ...tuningFlags(t, o.cached), ...hideMarkerFlags(remotePath), ...BOUNDED, '--log-file', o.logFile];
}

/**
 * The tuning as flags. MOUNT takes only read_only (SkyPilot's config.mount); the cache flags
 * mean nothing without the cache. More transfers get more checkers, as SkyPilot pairs them:
 * twice as many, flattening past 30 (min(2t, 30 + 1.2t)), at least 4.
 */
export function tuningFlags(t: MountTuning, cached: boolean): string[] {
  const out: string[] = [];
  if (cached) {
    if (t.transfers !== undefined) {
      out.push('--transfers', String(t.transfers), '--checkers', String(Math.max(4, Math.floor(Math.min(2 * t.transfers, 30 + 1.2 * t.transfers)))));
    }
    const sizes: [keyof MountTuning, string][] = [['buffer_size', '--buffer-size'], ['vfs_cache_max_size', '--vfs-cache-max-size'],
      ['vfs_cache_max_age', '--vfs-cache-max-age'], ['vfs_read_ahead', '--vfs-read-ahead'], ['vfs_read_chunk_size', '--vfs-read-chunk-size']];
    for (const [key, flag] of sizes) if (t[key] !== undefined) out.push(flag, String(t[key]));
  }
  if (t.read_only) out.push('--read-only');
  return out;
}
