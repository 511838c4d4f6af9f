// MOUNT_CACHED: the node's list of cached mounts, which the agent's job driver reads to hold a
// job's end until its writes reached the bucket (agent/README.md, "Cached mounts", is the format).
// One file per mount, so two launches mounting at once never rewrite each other's entries.
import type { Transport } from '../transport';
import { quotePath } from '../transport/shellQuote';
import { DEFAULT_TIMEOUTS } from './context';
import type { MountHandle } from './handle';

/** Under the agent's base dir. */
export const CACHED_REGISTRY_DIR = 'storage/cached';

/** What the agent reads (agent/skydeck_agent_lib/flushwait.py). */
export interface CachedMountEntry {
  dst: string;
  stateDir: string;
  label: string;
  pid: number;
  timeout_s: number;
}

/** The entry's path: named like the mount's state dir (a hash of its destination). */
export function cachedRegistryPath(agentBase: string, h: Pick<MountHandle, 'stateDir'>): string {
  const id = h.stateDir.replace(/\/+$/, '').split('/').pop() ?? '';
  if (!/^[A-Za-z0-9._-]+$/.test(id) || id.startsWith('.')) throw new Error(`cached mount: odd state dir ${h.stateDir}`);
  return `${agentBase.replace(/\/+$/, '')}/${CACHED_REGISTRY_DIR}/${id}.json`;
}

export function cachedEntry(h: MountHandle, flushMs: number = DEFAULT_TIMEOUTS.flushMs): CachedMountEntry {
  return { dst: h.mountPoint, stateDir: h.stateDir, label: h.label, pid: h.pid, timeout_s: flushMs / 1000 };
}

/** Records a cached mount (no-op for a plain MOUNT). The JSON travels on stdin, never in a command line. */
export async function registerCachedMount(t: Transport, agentBase: string, h: MountHandle, flushMs?: number): Promise<void> {
  if (!h.cached) return;
  const file = cachedRegistryPath(agentBase, h);
  const dir = file.slice(0, file.lastIndexOf('/'));
  const tmp = `${file}.tmp`;
  const script = `umask 077 && mkdir -p ${quotePath(dir)} && cat > ${quotePath(tmp)} && mv -f ${quotePath(tmp)} ${quotePath(file)}`;
  const r = await t.execShell(script, { stdin: JSON.stringify(cachedEntry(h, flushMs)), signal: AbortSignal.timeout(30_000) });
  if (r.code !== 0) throw new Error(`${h.label}: cannot record the cached mount (${r.stderr.toString().trim()})`);
}

/** At unmount: the agent stops waiting for it. */
export async function unregisterCachedMount(t: Transport, agentBase: string, h: MountHandle): Promise<void> {
  if (!h.cached) return;
  await t.execShell(`rm -f ${quotePath(cachedRegistryPath(agentBase, h))}`, { signal: AbortSignal.timeout(30_000) });
}

/** The entries on the node (for checks and tests). */
export async function listCachedMounts(t: Transport, agentBase: string): Promise<CachedMountEntry[]> {
  const dir = `${agentBase.replace(/\/+$/, '')}/${CACHED_REGISTRY_DIR}`;
  const r = await t.execShell(`for f in ${quotePath(dir)}/*.json; do [ -f "$f" ] && cat "$f" && echo; done; true`,
    { signal: AbortSignal.timeout(30_000) });
  return r.stdout.toString().split('\n').filter(Boolean).flatMap((l) => {
    try { return [JSON.parse(l) as CachedMountEntry]; } catch { return []; }
  });
}
