// Where file_mounts may write on a node. Only absolute paths and paths under the home
// directory (`~/…`), as in SkyPilot, and never with a `..` segment: a relative destination
// would land wherever the copying shell happens to run (on the local cloud, the CLI's working
// directory) and `..` climbs out of the place the user read.

/** Why `dst` may not be written to on a node, or undefined when it may. */
export function mountDestinationProblem(dst: string): string | undefined {
  if (dst === '') return 'is empty';
  if (dst.includes('\0')) return 'contains a NUL character';
  if (!(dst.startsWith('/') || dst === '~' || dst.startsWith('~/'))) {
    return dst.startsWith('~') ? 'names another user\'s home (~user); only ~/… (the home of the user Skydeck logs in as) is allowed' : 'is a relative path';
  }
  if (dst.split('/').includes('..')) return 'has a ".." segment';
  return undefined;
}

/** Top-level directories the node's system lives in: a mount or copy onto one of them replaces or hides it. */
const SYSTEM_DIRS = ['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'libx32', 'proc', 'root', 'run', 'sbin', 'sys', 'tmp', 'usr', 'var'];
/** Under ~: the node's SSH login keys and Skydeck's own agent, state and mount records. */
const HOME_PRIVATE: Record<string, string> = { '.ssh': "the node's SSH login keys", '.skydeck': "Skydeck's agent and its state" };

/**
 * A bucket destination (already past mountDestinationProblem) that would hide (MOUNT) or fill
 * with a bucket's objects (COPY) what the node itself needs. Local copies may still target ~.
 */
export function bucketDestinationProblem(dst: string): string | undefined {
  const parts = dst.split('/').filter((p) => p !== '' && p !== '.');
  if (dst.startsWith('/')) {
    if (parts.length === 0) return 'is the root directory';
    if (parts.length === 1 && SYSTEM_DIRS.includes(parts[0])) return `is the system directory /${parts[0]} itself`;
    return undefined;
  }
  const under = parts.slice(1);
  if (under.length === 0) return 'is the home directory itself';
  const what = HOME_PRIVATE[under[0]];
  return what ? `is inside ~/${under[0]}, which holds ${what}` : undefined;
}

export const MOUNT_DESTINATION_HINT = 'write an absolute path (/data/x) or a path under the home directory (~/data/x), without ".."';
export const BUCKET_DESTINATION_HINT = 'mount or copy a bucket onto a directory of its own, e.g. /data/x or ~/data/x: ' +
  'not /, ~, a system directory such as /etc itself, ~/.ssh or ~/.skydeck';

/** The job's working directory on a node: absolute, no `..` (it comes from the state file). */
export function remoteDirProblem(dir: string): string | undefined {
  if (dir.includes('\0')) return 'contains a NUL character';
  if (!dir.startsWith('/')) return 'is not an absolute path';
  if (dir.split('/').includes('..')) return 'has a ".." segment';
  return undefined;
}

/**
 * On the local cloud the "node" is this machine, which users do not always expect: said
 * plainly when a task has file_mounts and would run there.
 */
export function localMountNote(destinations: string[], home: string): string | undefined {
  if (destinations.length === 0) return undefined;
  const example = destinations.find((d) => d === '~' || d.startsWith('~/')) ?? destinations[0];
  const where = example === '~' ? home : example.startsWith('~/') ? `${home}/${example.slice(2)}` : example;
  return `on the local cloud the cluster is this machine: file_mounts write to this machine's files, and ~ is this ` +
    `machine's home (${home}), so ${JSON.stringify(example)} is written to ${JSON.stringify(where)}`;
}
