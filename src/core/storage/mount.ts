// MOUNT and MOUNT_CACHED: rclone mount as a background process of its own session (so it
// outlives the SSH command that started it and serves the mount for the cluster's life).
// Not `rclone mount --daemon`: in 1.60 a daemon that dies at once still makes its parent wait
// the whole --daemon-wait. Here the caller watches the process and /proc/self/mountinfo, and
// stops at whichever comes first: mounted, exited (its log says why), or the time limit.
import { classifyFailure, StorageError, timeoutError } from './errors';
import { mountArgv } from './rcloneArgs';
import { runWithEnv } from './runOnNode';
import { prepare, sleep, stateDir, type Prepared, type StorageContext } from './context';
import { findMount, isDeadMountError, mountAt } from './mountInfo';
import { probeBucket } from './probe';
import type { NodeMount } from './target';
import { quoteArgv, quotePath, shellQuote } from '../transport/shellQuote';
import type { Transport } from '../transport';
import { lazyUnmount } from './unmount';
import type { MountHandle } from './handle';

export type { MountHandle };


/** mkdir -p and resolve; a dead FUSE mount left at dst is detached first. */
async function resolveDir(t: Transport, dir: string, label: string): Promise<string> {
  const script = `mkdir -p ${quotePath(dir)} && cd ${quotePath(dir)} && pwd -P`;
  let r = await t.execShell(script, { signal: AbortSignal.timeout(30_000) });
  if (r.code !== 0 && isDeadMountError(r.stderr.toString())) {
    await lazyUnmount(t, dir);
    r = await t.execShell(script, { signal: AbortSignal.timeout(30_000) });
  }
  if (r.code !== 0) {
    throw new StorageError('mountpoint', label, `cannot create the mount point (${r.stderr.toString().trim()})`,
      'Choose a destination the node user can create.');
  }
  return r.stdout.toString().trim();
}

/** proc(5)'s escaping of a path in mountinfo (space, tab, newline, backslash as \ooo). */
function mountInfoPath(p: string): string {
  return p.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

/**
 * Starts rclone mount in its own session; prints its pid. A node with only fusermount3 gets a
 * `fusermount` link for rclone 1.60, which runs that name. Two launches or execs mounting the
 * same destination at once would stack two rclone mounts there (one orphaned): the start holds
 * a lock on the mount's state dir until the mount shows up (or rclone exits, or time runs out),
 * and a start that finds this state dir's rclone already running prints "EXISTING <pid>".
 */
function startScript(argv: string[], state: string, mountPoint: string, waitTenths: number): string {
  const s = shellQuote(state);
  return [
    `mkdir -p ${s}/cache && cd ${s} || exit 1`,
    // Without flock (not in util-linux?) the start is unlocked, as before.
    'if command -v flock >/dev/null 2>&1; then exec 9>mount.lock && flock -w 120 9 || exit 1; fi',
    `MP=${shellQuote(mountInfoPath(mountPoint))}; export MP`,
    // ENVIRON, not -v: awk would read the \\ooo escapes of a -v value.
    `mounted() { awk '$5 == ENVIRON["MP"] { f = 1 } END { exit !f }' /proc/self/mountinfo; }`,
    // This state dir's rclone: serving the mount (a racing start got there first), or left over
    // from a lazy unmount and serving nothing (ended, so it is not orphaned by the new one).
    `if P=$(cat pid 2>/dev/null) && kill -0 "$P" 2>/dev/null && grep -q rclone "/proc/$P/cmdline" 2>/dev/null; then`,
    '  if mounted; then echo "EXISTING $P"; exit 0; fi',
    '  kill "$P"; j=0; while kill -0 "$P" 2>/dev/null && [ $j -lt 100 ]; do sleep 0.1; j=$((j + 1)); done; kill -9 "$P" 2>/dev/null; fi',
    ': > rclone.log',
    `if ! command -v fusermount >/dev/null 2>&1 && command -v fusermount3 >/dev/null 2>&1; then`,
    `  mkdir -p ${s}/bin && ln -sf "$(command -v fusermount3)" ${s}/bin/fusermount && PATH=${s}/bin:$PATH; fi`,
    `command -v rclone >/dev/null 2>&1 || { echo 'rclone: not found' >&2; exit 127; }`,
    `setsid ${quoteArgv(argv)} </dev/null >/dev/null 2>>rclone.log 9>&- &`,
    'R=$! && echo $R > pid && echo $R',
    `i=0; while [ $i -lt ${waitTenths} ] && kill -0 $R 2>/dev/null; do`,
    '  mounted && break',
    '  sleep 0.1; i=$((i + 1)); done',
  ].join('\n');
}

export async function mountBucket(ctx: StorageContext, m: NodeMount, signal?: AbortSignal): Promise<MountHandle> {
  if (m.mode === 'COPY') throw new Error('mountBucket: a COPY mount is copied, not mounted');
  const p = prepare(ctx, m);
  const t = ctx.transport;
  const cached = m.mode === 'MOUNT_CACHED';
  const mountPoint = await resolveDir(t, m.dst, p.label);
  const state = await resolveDir(t, stateDir(ctx, mountPoint), p.label);
  const handle = (pid: number): MountHandle => ({ label: p.label, mountPoint, stateDir: state, pid, cached, source: p.remote.remotePath });

  const existing = await mountAt(t, mountPoint);
  if (existing) {
    if (existing.fsType === 'fuse.rclone' && existing.source === p.remote.remotePath) {
      // Kept only if it is this context's own mount (its rclone, recorded in our state dir, still
      // runs): another cluster's mount of the same bucket on a shared host would be unmounted
      // under it by our down.
      const own = await t.execShell(`P=$(cat ${shellQuote(`${state}/pid`)} 2>/dev/null) && kill -0 "$P" 2>/dev/null && echo "$P"`,
        { signal: AbortSignal.timeout(15_000) });
      const pid = Number(own.stdout.toString().trim());
      if (own.code !== 0 || !Number.isInteger(pid) || pid <= 0) {
        throw new StorageError('mountpoint', p.label, `${mountPoint} is already mounted from the same bucket, but not by this cluster (another cluster on this host, or by hand)`,
          'Choose another destination, or unmount it first.');
      }
      p.say('already mounted');
      return handle(pid);
    }
    throw new StorageError('mountpoint', p.label, `${mountPoint} is already a mount (${existing.fsType} ${existing.source})`,
      'Unmount it or choose another destination.');
  }
  // FUSE 3 mounts over a non-empty directory without a word, hiding what is there.
  const empty = await t.execShell(`[ -z "$(ls -A ${shellQuote(mountPoint)})" ]`, { signal: AbortSignal.timeout(15_000) });
  if (empty.code !== 0) {
    throw new StorageError('mountpoint', p.label, `${mountPoint} is not empty; a mount would hide its files`,
      'Mount on an empty or new directory, or use mode COPY to add the bucket\'s files to it.');
  }
  await probeBucket(ctx, p, signal);
  p.say(cached ? 'mounting with a write cache' : 'mounting');
  const argv = mountArgv(p.remote.remotePath, mountPoint, { cached, cacheDir: `${state}/cache`, logFile: `${state}/rclone.log`, tuning: m.tuning });
  const startMs = p.timeouts.mountMs + 150_000; // the lock wait (120 s) and the mount's own
  const script = startScript(argv, state, mountPoint, Math.ceil(p.timeouts.mountMs / 100));
  const started = await runWithEnv(t, script, p.remote.env, { timeoutMs: startMs, signal });
  if (started.timedOut) throw timeoutError(p.label, 'starting rclone mount', startMs);
  if (started.code !== 0) throw classifyFailure(p.label, 'starting rclone mount', started.code, p.clean(started.stderr.toString()));
  const out = started.stdout.toString().trim();
  const raced = /^EXISTING (\d+)$/.exec(out);
  if (raced) {
    p.say('already mounted (by a launch running at the same time)');
    return waitMounted(ctx, p, handle(Number(raced[1])), signal);
  }
  const pid = Number(out);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${p.label}: rclone mount started but gave no pid`);
  return waitMounted(ctx, p, handle(pid), signal);
}

async function readMountInfo(t: Transport, pre: string): Promise<string> {
  const r = await t.execShell(`${pre}cat /proc/self/mountinfo`, { signal: AbortSignal.timeout(15_000) });
  return r.stdout.toString();
}

async function waitMounted(ctx: StorageContext, p: Prepared, h: MountHandle, signal?: AbortSignal): Promise<MountHandle> {
  const t = ctx.transport;
  const until = Date.now() + p.timeouts.mountMs;
  for (;;) {
    signal?.throwIfAborted();
    const text = await readMountInfo(t, `kill -0 ${h.pid} 2>/dev/null && echo ALIVE; `);
    if (findMount(text, h.mountPoint)) {
      p.say('mounted');
      return h;
    }
    if (!text.startsWith('ALIVE')) {
      const log = await t.exec(['tail', '-c', '4000', `${h.stateDir}/rclone.log`]);
      throw classifyFailure(p.label, 'rclone mount', 1, p.clean(log.stdout.toString()));
    }
    if (Date.now() > until) {
      await t.exec(['kill', String(h.pid)]);
      await lazyUnmount(t, h.mountPoint);
      throw timeoutError(p.label, 'rclone mount', p.timeouts.mountMs);
    }
    await sleep(100);
  }
}
