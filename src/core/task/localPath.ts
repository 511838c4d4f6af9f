import * as os from 'node:os';
import * as path from 'node:path';

/**
 * A local path of a task (workdir, a file_mounts source), resolved against the folder the
 * caller chose: `sky` resolves against the folder it runs in, so the CLI passes its working
 * directory and the editor the workspace folder holding the YAML (ops/loadTask.ts pathBase).
 */
export function localPath(p: string, base: string): string {
  const home = p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p;
  return path.resolve(base, home);
}
