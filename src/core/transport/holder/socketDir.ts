// Where the connection holder listens, and the checks that keep anyone but this user out of it.
// Everything that reaches the holder's socket runs commands on the user's machines, so the
// directory must be this user's own (0700, not a symlink) and the socket this user's (0600):
// anything else is refused, never repaired, and the CLI connects directly instead.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const SOCKET_NAME = 'holder.sock';
export const PID_NAME = 'holder.pid';

/** Why the holder's directory or socket was not used (shown with SKYDECK_VERBOSE, not as an alarm). */
export class HolderRefusedError extends Error {}

/** $SKYDECK_HOLDER_DIR, else ~/.skydeck/run (per user; a path in /tmp could be planted by others). */
export function holderDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.SKYDECK_HOLDER_DIR || path.join(os.homedir(), '.skydeck', 'run');
}

const uid = (): number => (process.getuid ? process.getuid() : -1);

/** Refuses a path that is a symlink, not a directory, another user's, or open to group/others. */
export function checkPrivateDir(dir: string): void {
  const st = fs.lstatSync(dir);
  if (st.isSymbolicLink()) throw new HolderRefusedError(`${dir} is a symlink`);
  if (!st.isDirectory()) throw new HolderRefusedError(`${dir} is not a directory`);
  if (uid() >= 0 && st.uid !== uid()) throw new HolderRefusedError(`${dir} belongs to uid ${st.uid}, not ${uid()}`);
  if ((st.mode & 0o077) !== 0) throw new HolderRefusedError(`${dir} has mode ${(st.mode & 0o777).toString(8)}, not 700`);
}

/** Makes the directory (0700) when missing, then checks it as checkPrivateDir does. */
export function ensurePrivateDir(dir: string): void {
  try {
    fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  checkPrivateDir(dir);
}

/** The socket path, after checking the directory and the socket itself (which must exist). */
export function checkedSocketPath(dir: string): string {
  checkPrivateDir(dir);
  const sock = path.join(dir, SOCKET_NAME);
  // sun_path holds 108 bytes: a longer path would be cut, and could name another file.
  if (Buffer.byteLength(sock) > 100) throw new HolderRefusedError(`${sock} is too long for a Unix socket path`);
  const st = fs.lstatSync(sock);
  if (!st.isSocket()) throw new HolderRefusedError(`${sock} is not a socket`);
  if (uid() >= 0 && st.uid !== uid()) throw new HolderRefusedError(`${sock} belongs to uid ${st.uid}, not ${uid()}`);
  if ((st.mode & 0o077) !== 0) throw new HolderRefusedError(`${sock} has mode ${(st.mode & 0o777).toString(8)}, not 600`);
  return sock;
}
