import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * `file` with every link resolved, if it is a regular file inside `root` (also resolved), else
 * undefined. The page asked for it, and the workdir is the workspace's: a link in it may point
 * anywhere, so the check is made on the real paths, right before opening.
 */
export function realFileInside(file: string, root: string): string | undefined {
  try {
    const realRoot = fs.realpathSync(root);
    const real = fs.realpathSync(file);
    const rel = path.relative(realRoot, real);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
    return fs.statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}
