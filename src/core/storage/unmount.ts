// Unmounting: `fusermount -u`, retried while the mount is busy (a process still has a file
// open or its cwd there), then lazily (-z: detached now, released when the last user lets go)
// once the grace time is over. Afterwards the rclone process must be gone as well.
import type { Transport } from '../transport';
import { quotePath } from '../transport/shellQuote';
import { sleep } from './context';
import { StorageError } from './errors';
import { mountAt } from './mountInfo';
import type { MountHandle } from './handle';

// fusermount3 where FUSE 3 is installed, else the FUSE 2 name.
const FUSERMOUNT = 'if command -v fusermount3 >/dev/null 2>&1; then f=fusermount3; else f=fusermount; fi';

async function fusermount(t: Transport, dir: string, lazy: boolean): Promise<{ code: number | null; stderr: string }> {
  const r = await t.execShell(`${FUSERMOUNT}; exec "$f" -u${lazy ? ' -z' : ''} ${quotePath(dir)}`, { signal: AbortSignal.timeout(30_000) });
  return { code: r.code, stderr: r.stderr.toString().trim() };
}

/** Detaches whatever FUSE mount is at dir, busy or not; quiet when nothing is mounted there. */
export async function lazyUnmount(t: Transport, dir: string): Promise<void> {
  await fusermount(t, dir, true);
}

async function alive(t: Transport, pid: number): Promise<boolean> {
  return (await t.execShell(`kill -0 ${pid} 2>/dev/null`, { signal: AbortSignal.timeout(15_000) })).code === 0;
}

/**
 * Unmounts and waits for the rclone process to end (TERM after 10 s, 2 s after a lazy unmount;
 * KILL 5 s later). For
 * MOUNT_CACHED, call waitFlushed first: rclone keeps unsent files in its cache across an
 * unmount, and they would reach the bucket only at the next mount.
 */
export async function unmountBucket(t: Transport, h: MountHandle, graceMs = 10_000): Promise<void> {
  const until = Date.now() + graceMs;
  let lazy = false;
  while (await mountAt(t, h.mountPoint)) {
    const r = await fusermount(t, h.mountPoint, false);
    if (r.code === 0) break;
    if (!/busy/i.test(r.stderr)) {
      throw new StorageError('failed', h.label, `unmounting failed (${r.stderr})`, 'Check that fusermount3 is installed and the mount belongs to this user.');
    }
    if (Date.now() > until) {
      const z = await fusermount(t, h.mountPoint, true);
      if (z.code !== 0) throw new StorageError('failed', h.label, `lazy unmount failed (${z.stderr})`, 'Unmount it by hand as root: umount -l.');
      lazy = true;
      break;
    }
    await sleep(250);
  }
  // After a lazy unmount rclone keeps serving whoever still holds the mount: end it sooner.
  for (const [wait, sig] of [[lazy ? 2000 : 10_000, 'TERM'], [5_000, 'KILL']] as const) {
    const end = Date.now() + wait;
    while (Date.now() < end) {
      if (!(await alive(t, h.pid))) return;
      await sleep(100);
    }
    await t.exec(['kill', `-${sig}`, String(h.pid)]);
  }
}
