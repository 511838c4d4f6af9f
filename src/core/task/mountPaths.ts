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

export const MOUNT_DESTINATION_HINT = 'write an absolute path (/data/x) or a path under the home directory (~/data/x), without ".."';

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
