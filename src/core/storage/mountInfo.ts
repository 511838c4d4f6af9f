// Is a path a mount point on the node? Read from /proc/self/mountinfo (proc(5)): never from
// the mount point itself, which hangs when its FUSE server is stuck.
import type { Transport } from '../transport';

export interface MountEntry {
  mountPoint: string;
  /** e.g. "fuse.rclone" */
  fsType: string;
  /** e.g. "skydeck:bkt/prefix" for an rclone mount */
  source: string;
}

/** proc(5) escapes space, tab, newline and backslash in paths as \ooo octal. */
function unescape(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** Lines: "id parent maj:min root mountpoint options [optional fields…] - fstype source superopts". */
export function parseMountInfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    const sep = f.indexOf('-', 6);
    if (f.length < 7 || sep < 0 || sep + 2 >= f.length) continue;
    out.push({ mountPoint: unescape(f[4]), fsType: f[sep + 1], source: unescape(f[sep + 2]) });
  }
  return out;
}

/** The (last, i.e. topmost) mount at `absPath`, or undefined. */
export function findMount(text: string, absPath: string): MountEntry | undefined {
  const p = absPath.length > 1 ? absPath.replace(/\/+$/, '') : absPath;
  return parseMountInfo(text).filter((m) => m.mountPoint === p).pop();
}

/**
 * Whether a command's error says its path is a FUSE mount whose server died: ENOTCONN once the
 * kernel aborted the connection, ECONNABORTED for a call that was in flight when it did.
 */
export function isDeadMountError(stderr: string): boolean {
  return /Transport endpoint is not connected|Software caused connection abort/.test(stderr);
}

export async function mountAt(t: Transport, absPath: string): Promise<MountEntry | undefined> {
  const r = await t.exec(['cat', '/proc/self/mountinfo'], { signal: AbortSignal.timeout(15_000) });
  if (r.code !== 0) throw new Error(`reading /proc/self/mountinfo on ${t.description} failed: ${r.stderr.toString().trim()}`);
  return findMount(r.stdout.toString(), absPath);
}
