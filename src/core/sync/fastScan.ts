// The local scan of a workdir sync, listed by find when it can be (treeListing.ts). A listing
// cannot apply ignore rules while it walks, so it skips the directories the last walk of the
// same tree pruned — valid only while every ignore file that walk read is unchanged, which
// the walk over the listing proves afterwards; otherwise the file system is walked again.
import { scanWorkdir, type ManifestEntry } from './manifest';
import { listTree } from './treeListing';
import type { WalkRecord } from './workdirWalk';

/** Per tree (root and extra rules): what its last walk in this process pruned, and why. */
const memo = new Map<string, { rulesKey: string; pruned: string[] }>();
/** Thousands of -path tests would cost find more than the walk they save. */
const MAX_PRUNED = 2000;
const onLinux = process.platform === 'linux';

export async function scanWorkdirFast(
  root: string, extraRules: string, prev: Map<string, ManifestEntry>, onIgnored?: () => void,
): Promise<ManifestEntry[]> {
  const key = `${root}\0${extraRules}`;
  const last = memo.get(key);
  if (onLinux && last && last.pruned.length <= MAX_PRUNED) {
    const view = await listTree(root, last.pruned);
    if (view) {
      let ignored = 0;
      const record: WalkRecord = { rulesKey: [], pruned: [] };
      const entries = scanWorkdir(root, extraRules, prev, () => ignored++, view, record);
      if (record.rulesKey.join('\0\0') === last.rulesKey) {
        for (let i = 0; i < ignored; i++) onIgnored?.();
        return entries;
      }
    }
  }
  const record: WalkRecord = { rulesKey: [], pruned: [] };
  const entries = scanWorkdir(root, extraRules, prev, onIgnored, undefined, record);
  memo.set(key, { rulesKey: record.rulesKey.join('\0\0'), pruned: record.pruned });
  return entries;
}
