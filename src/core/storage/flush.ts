// MOUNT_CACHED: has every write reached the bucket? rclone 1.60 can tell over its remote-control
// API (vfs/stats), but that API listens only on TCP in 1.60 (`--rc-addr unix://…` is refused:
// "unknown port"), and the node must not open a port for it. Instead the cache's own state is
// read: rclone keeps one metadata file per cached object under <cache>/vfsMeta/, marks it
// "Dirty": true (and saves it) on the first write, and clears it only after the upload succeeded
// (vfs/vfscache/item.go: _dirty, _store). No dirty file and a live rclone = all uploaded. A file
// still open by some process stays dirty, so the wait times out naming it, never returns early.
import type { Transport } from '../transport';
import { shellQuote } from '../transport/shellQuote';
import { sleep } from './context';
import { StorageError } from './errors';
import type { MountHandle } from './handle';

export interface FlushState {
  alive: boolean;
  /** Objects not yet uploaded, as paths under the mount's remote ("bkt/prefix/file"). */
  pending: string[];
}

export async function flushState(t: Transport, h: MountHandle): Promise<FlushState> {
  const meta = `${h.stateDir}/cache/vfsMeta`;
  const script = `kill -0 ${h.pid} 2>/dev/null && echo ALIVE; ` +
    `[ -d ${shellQuote(meta)} ] && grep -rlE '"Dirty":[[:space:]]*true' ${shellQuote(meta)} 2>/dev/null; true`;
  const r = await t.execShell(script, { signal: AbortSignal.timeout(30_000) });
  const lines = r.stdout.toString().split('\n').filter(Boolean);
  const alive = lines[0] === 'ALIVE';
  // <meta>/<remote name>/<bucket>/<path>
  const pending = lines.slice(alive ? 1 : 0).map((l) => l.slice(meta.length + 1).split('/').slice(1).join('/'));
  return { alive, pending };
}

/** Resolves once nothing is left to upload; throws (naming what is left) if rclone died or time ran out. */
export async function waitFlushed(t: Transport, h: MountHandle, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  if (!h.cached) return; // plain MOUNT: close() returns only after the upload
  const until = Date.now() + timeoutMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    signal?.throwIfAborted();
    const s = await flushState(t, h);
    // A dead rclone with nothing unsent (kill -9, OOM after its last upload) has nothing to wait
    // for: its dead mount is removed by the unmount that follows.
    if (s.pending.length === 0) return;
    const list = s.pending.slice(0, 5).join(', ') + (s.pending.length > 5 ? `, … (${s.pending.length} in all)` : '');
    if (!s.alive) {
      throw new StorageError('not-flushed', h.label, `rclone mount exited with ${s.pending.length} file(s) not uploaded: ${list}`,
        `They stay in ${h.stateDir}/cache and are uploaded when the bucket is mounted again; see ${h.stateDir}/rclone.log.`);
    }
    if (Date.now() > until) {
      throw new StorageError('not-flushed', h.label, `${s.pending.length} file(s) not uploaded within ${Math.round(timeoutMs / 1000)} s: ${list}`,
        `A process may still hold them open, or uploads are failing: see ${h.stateDir}/rclone.log.`);
    }
    await sleep(delay);
  }
}
