import { shellQuote } from '../transport/shellQuote';
import { MOUNT_DESTINATION_HINT, mountDestinationProblem, remoteDirProblem } from '../task/mountPaths';
import { printable } from '../task/printable';
import { OpsError } from './errors';

/**
 * A file_mounts destination as a shell word: a leading "~/" becomes "$HOME"/…, the rest is
 * quoted. The task parser refuses escaping destinations; this refuses them again because the
 * task (or state) reaching here may not have come through the parser.
 */
export function remotePathWord(p: string): string {
  const problem = mountDestinationProblem(p);
  if (problem) throw new OpsError('usage', printable(`file_mounts destination ${JSON.stringify(p)} ${problem}: refusing to write there (${MOUNT_DESTINATION_HINT})`));
  if (p === '~') return '"$HOME"';
  if (p.startsWith('~/')) return `"$HOME"/${shellQuote(p.slice(2))}`;
  return shellQuote(p);
}

/** The job's working directory on a node (recorded in the cluster's row) as a shell word. */
export function remoteDirWord(dir: string): string {
  const problem = remoteDirProblem(dir);
  if (problem) throw new OpsError('failed', printable(`the cluster's recorded workdir ${JSON.stringify(dir)} ${problem}: refusing to sync into it`));
  return shellQuote(dir);
}
