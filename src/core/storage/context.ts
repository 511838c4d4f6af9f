// What every node-side storage operation is given: the node, where its per-mount state lives,
// how to authenticate, time limits, and a log that only ever sees redacted text.
import { createHash } from 'node:crypto';
import type { Transport } from '../transport';
import { redact, rcloneRemote, type RcloneRemote, type StoreAccess } from './rcloneRemote';
import { mountLabel, type NodeMount } from './target';
import { StorageError } from './errors';
import { BUCKET_DESTINATION_HINT, bucketDestinationProblem } from '../task/mountPaths';

export interface Timeouts {
  /** The reachability probe before a copy or mount. */
  probeMs: number;
  /** A whole COPY (rclone's own --timeout already ends a transfer that stalls). */
  copyMs: number;
  /** From starting rclone mount to the mount point showing up. */
  mountMs: number;
  /** How long `fusermount -u` may find the mount busy before a lazy unmount. */
  unmountGraceMs: number;
  /** MOUNT_CACHED: how long the write cache may take to reach the bucket. */
  flushMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  probeMs: 60_000, copyMs: 6 * 3600_000, mountMs: 30_000, unmountGraceMs: 10_000, flushMs: 30 * 60_000,
};

export interface StorageContext {
  transport: Transport;
  /** Node directory for per-mount state (rclone log, pid, write cache), e.g. "~/.skydeck/storage". */
  stateBase: string;
  access: StoreAccess;
  timeouts?: Partial<Timeouts>;
  /** Progress lines; secrets are removed before they get here. */
  log?: (line: string) => void;
}

/** One mount's resolved pieces. */
export interface Prepared {
  label: string;
  remote: RcloneRemote;
  timeouts: Timeouts;
  /** Redacts the remote's secrets. */
  clean(text: string): string;
  say(line: string): void;
}

export function prepare(ctx: StorageContext, m: NodeMount): Prepared {
  const label = mountLabel(m.dst, m.target);
  // Again here: a mount may come from state or a caller that skipped the task parser.
  const covers = bucketDestinationProblem(m.dst);
  if (covers) throw new StorageError('mountpoint', label, `the destination ${covers}`, `${BUCKET_DESTINATION_HINT[0].toUpperCase()}${BUCKET_DESTINATION_HINT.slice(1)}.`);
  const remote = rcloneRemote(label, m.target, ctx.access);
  const clean = (s: string): string => redact(s, remote.env, remote.secret);
  return {
    label, remote, clean,
    timeouts: { ...DEFAULT_TIMEOUTS, ...ctx.timeouts },
    say: (line) => ctx.log?.(clean(`${label}: ${line}`)),
  };
}

/** The per-mount state directory's name: a hash of the destination. */
export function stateDirName(dst: string): string {
  return createHash('sha256').update(dst).digest('hex').slice(0, 16);
}

/** The per-mount state directory, named by a hash of the destination. */
export function stateDir(ctx: StorageContext, dst: string): string {
  return `${ctx.stateBase.replace(/\/+$/, '')}/${stateDirName(dst)}`;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
