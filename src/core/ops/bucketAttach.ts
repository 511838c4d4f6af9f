// Bucket mounts on one node: COPY / MOUNT / MOUNT_CACHED at launch (and exec), and their
// removal at down. Each mount's handle is recorded on the node itself, in its state directory
// under <agent base>/storage (the cluster's own directory there, so a down finds exactly this
// cluster's mounts, and removing that directory afterwards removes the records and caches too).
import type { Transport } from '../transport';
import { shellQuote } from '../transport/shellQuote';
import {
  copyFromBucket, mountAt, mountBucket, mountLabel, registerCachedMount, StorageError, unmountBucket, unregisterCachedMount,
  waitFlushed, type MountHandle, type StorageContext,
} from '../storage';
import { DEFAULT_TIMEOUTS, stateDirName } from '../storage/context';
import type { OpsContext } from './context';
import { OpsError } from './errors';
import { SHARE_SETTING, type PlannedMount } from './bucketPlan';

export interface StorageNode {
  /** For messages: the host's address. */
  name: string;
  transport: Transport;
  /** Absolute: <agent base>/storage. */
  stateBase: string;
}

const HANDLE = 'handle.json';

/** The agent's base dir: stateBase is always <agent base>/storage. */
function agentBaseOf(node: StorageNode): string {
  return node.stateBase.replace(/\/+$/, '').replace(/\/storage$/, '');
}

/**
 * Sets up every planned mount on the node, in order (a mount inside another comes after it).
 * A mount already there with the same source (a relaunch) is kept. Any failure is an OpsError
 * naming the node, the mount and the cause; the caller has not submitted the job yet.
 */
export async function attachBuckets(ctx: OpsContext, node: StorageNode, plan: PlannedMount[], signal?: AbortSignal): Promise<void> {
  for (const p of plan) {
    const label = mountLabel(p.mount.dst, p.mount.target);
    const sctx: StorageContext = {
      transport: node.transport, stateBase: node.stateBase, access: p.access, log: (line) => ctx.log(`${node.name}: ${line}`),
    };
    ctx.progress(`${p.mount.mode === 'COPY' ? 'Copying' : 'Mounting'} ${label} on ${node.name}${p.mount.mode === 'MOUNT' ? '' : ` (${p.mount.mode})`}`);
    // A grant made just now takes IAM a few seconds to apply: a refusal meanwhile is retried a while.
    const until = p.justGranted ? Date.now() + GRANT_SETTLE_MS : 0;
    for (;;) {
      try {
        await attachOne(node, p, sctx, signal);
        break;
      } catch (e) {
        if (e instanceof StorageError && e.kind === 'denied' && Date.now() < until && !signal?.aborted) {
          ctx.progress(`${label} on ${node.name}: still refused; waiting for the new bucket grant to apply`);
          await new Promise((r) => setTimeout(r, 3000));
          continue;
        }
        if (e instanceof StorageError) throw new OpsError('failed', `file_mounts on ${node.name}: ${e.message}`);
        throw e;
      }
    }
    if (p.shared) ctx.progress(`copied your ${p.shared} credentials to ${node.name} for ${label} (${SHARE_SETTING} is on)`);
  }
}

/** How long a refusal right after a grant is put down to IAM's propagation (seconds, in AWS's words). */
const GRANT_SETTLE_MS = 60_000;

async function attachOne(node: StorageNode, p: PlannedMount, sctx: StorageContext, signal?: AbortSignal): Promise<void> {
  if (p.mount.mode === 'COPY') return copyFromBucket(sctx, p.mount, signal);
  const h = await mountBucket(sctx, p.mount, signal);
  await record(node.transport, h);
  // MOUNT_CACHED: the agent holds each job's end until this mount's cache is uploaded.
  await registerCachedMount(node.transport, agentBaseOf(node), h);
}

async function record(t: Transport, h: MountHandle): Promise<void> {
  const r = await t.exec(['/bin/sh', '-c', 'umask 077; cat > "$1.tmp" && mv -f "$1.tmp" "$1"', 'sh', `${h.stateDir}/${HANDLE}`],
    { stdin: JSON.stringify(h) });
  if (r.code !== 0) throw new OpsError('failed', `${h.label}: recording the mount on ${t.description} failed: ${r.stderr.toString().trim()}`);
}

/**
 * The mounts recorded on the node (none if its storage directory does not exist). A record is a
 * file on the node, not proof: one that is not exactly what record() wrote for the directory it
 * sits in (its name is the hash of the mount point; the pid a number, as it reaches `kill` in a
 * shell) is ignored, so a planted or edited record never unmounts another mount or runs a word.
 */
export async function recordedMounts(node: StorageNode): Promise<MountHandle[]> {
  const script = `for f in ${shellQuote(node.stateBase)}/*/${HANDLE}; do [ -f "$f" ] && { d=\${f%/*}; printf '%s ' "\${d##*/}"; cat "$f"; echo; }; done; true`;
  const r = await node.transport.execShell(script, { signal: AbortSignal.timeout(30_000) });
  return r.stdout.toString().split('\n').filter((l) => l.trim()).flatMap((l) => {
    const dir = l.slice(0, l.indexOf(' '));
    try {
      const h = JSON.parse(l.slice(dir.length + 1)) as MountHandle;
      return isOwnRecord(h, dir) ? [h] : [];
    } catch {
      return []; // a record cut short by a crash: its mount, if any, is still found by the next relaunch
    }
  });
}

function isOwnRecord(h: MountHandle, dir: string): boolean {
  return typeof h === 'object' && h !== null && typeof h.label === 'string' && typeof h.cached === 'boolean'
    && typeof h.mountPoint === 'string' && h.mountPoint.startsWith('/') && stateDirName(h.mountPoint) === dir
    && typeof h.stateDir === 'string' && h.stateDir.endsWith(`/${dir}`)
    && Number.isSafeInteger(h.pid) && h.pid > 1 && typeof h.source === 'string' && h.source.startsWith('skydeck:');
}

/**
 * Before the cluster goes: every recorded mount still mounted from its source is flushed
 * (MOUNT_CACHED: its cache reaches the bucket first, or the down fails and keeps the cluster)
 * and unmounted, lazily if it stays busy. A record whose mount is gone is only dropped.
 */
export async function detachBuckets(ctx: OpsContext, node: StorageNode, flushMs = DEFAULT_TIMEOUTS.flushMs): Promise<string[]> {
  const notes: string[] = [];
  // Inner mounts first: an outer one is busy while another is mounted inside it.
  const handles = (await recordedMounts(node)).sort((a, b) => b.mountPoint.length - a.mountPoint.length);
  for (const h of handles) {
    const now = await mountAt(node.transport, h.mountPoint);
    if (now && now.fsType === 'fuse.rclone' && now.source === h.source) {
      ctx.progress(`Unmounting ${h.label} on ${node.name}`);
      try {
        await waitFlushed(node.transport, h, flushMs);
        await unmountBucket(node.transport, h, DEFAULT_TIMEOUTS.unmountGraceMs);
      } catch (e) {
        if (e instanceof StorageError) throw new Error(`on ${node.name}: ${e.message}`);
        throw e;
      }
      notes.push(`unmounted ${h.label} on ${node.name}`);
    }
    await unregisterCachedMount(node.transport, agentBaseOf(node), h);
    await node.transport.exec(['rm', '-f', '--', `${h.stateDir}/${HANDLE}`]);
  }
  return notes;
}
