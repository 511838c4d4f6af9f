// The local scan of a workdir sync, as cheap as what changed allows. Three ways, fastest first:
//  1. Only files changed in place since the last scan of the tree in this process (find's
//     -newerct: ctime moves with every write, chmod or rename and cannot be set back): that
//     scan's entries, with those files' new stats. Any directory changed (a file made, removed or
//     renamed), an ignore file changed, or a changed path it does not hold: way 2.
//  2. The whole tree listed by find (treeListing.ts) and walked like the file system. A listing
//     cannot apply ignore rules while it walks, so it skips the directories the last walk
//     pruned — valid only while every ignore file that walk read is unchanged, which the walk
//     over the listing proves afterwards; otherwise way 3.
//  3. The file system walked (workdirWalk.ts): the first scan of a tree in this process, and
//     off Linux.
import * as fs from 'node:fs';
import { RACY_MS, scanWorkdir, type ManifestEntry } from './manifest';
import { listChanged, listTree, type Listed } from './treeListing';
import type { WalkRecord } from './workdirWalk';
import { trace } from '../util/trace';
import type { ScanMemo } from './scanMemoFile';

interface Memo {
  rulesKey: string;
  pruned: string[];
  ignored: number;
  /** The last scan's result and when it started (way 1 starts from it). */
  entries: ManifestEntry[];
  startedMs: number;
  /** performance.now() at startedMs: a wall clock that stepped back since is seen. */
  monoMs: number;
  /** Where each path is in `entries`, once a way-1 scan needed it (a patch keeps positions). */
  index?: Map<string, number>;
}

/** Per tree (root and extra rules). */
const memo = new Map<string, Memo>();

/**
 * The root by its real path: a workdir that is a link pointed at another tree moves no ctime
 * in either, so the first tree's memo would be taken for the second's scan.
 */
function treeKey(root: string, extraRules: string): string {
  let real: string;
  try {
    real = fs.realpathSync(root);
  } catch {
    real = root;
  }
  return `${real}\0${extraRules}`;
}
/** Thousands of -path tests would cost find more than the walk they save. */
const MAX_PRUNED = 2000;
/**
 * ctime comes from the kernel's coarse clock, a tick (≤ 10 ms) behind Date.now(): changes made
 * shortly before the last scan started are looked at again.
 */
const CLOCK_SLACK_MS = 100;
const onLinux = process.platform === 'linux';

export async function scanWorkdirFast(
  root: string, extraRules: string, prev: Map<string, ManifestEntry>, onIgnored?: () => void,
): Promise<ManifestEntry[]> {
  const key = treeKey(root, extraRules);
  const startedMs = Date.now();
  const monoMs = performance.now();
  const got = memo.get(key);
  // The wall clock stepped back since (NTP, a resumed VM): find -newerct from the old start would
  // miss edits made after the step, so the memo is not used.
  const last = got && startedMs - got.startedMs >= monoMs - got.monoMs - CLOCK_SLACK_MS ? got : undefined;
  const remember = (entries: ManifestEntry[], m: Omit<Memo, 'entries' | 'startedMs' | 'monoMs'>) => {
    memo.set(key, { ...m, entries, startedMs, monoMs });
    return entries;
  };
  if (onLinux && last && last.pruned.length <= MAX_PRUNED) {
    // Rules read through a link change with its target, which way 1 takes for a plain edit.
    const changed = rulesThroughLink(last.entries) ? undefined : await listChanged(root, last.pruned, last.startedMs - CLOCK_SLACK_MS);
    const entries = changed && patched(last, changed);
    trace(entries ? 'scan: only files changed in place' : 'scan: more than files changed in place');
    if (entries) {
      for (let i = 0; i < last.ignored; i++) onIgnored?.();
      return remember(entries, last);
    }
    const view = await listTree(root, last.pruned);
    trace(view ? 'scan: tree listed by find' : 'scan: find could not list the tree');
    if (view) {
      let ignored = 0;
      const record: WalkRecord = { rulesKey: [], pruned: [] };
      const entries = scanWorkdir(root, extraRules, prev, () => ignored++, view, record, changed && settledSince(last, changed));
      trace('scan: listing walked');
      if (record.rulesKey.join('\0\0') === last.rulesKey) {
        for (let i = 0; i < ignored; i++) onIgnored?.();
        return remember(entries, { ...last, ignored, index: undefined }); // new entries: other positions
      }
    }
  }
  let ignored = 0;
  const record: WalkRecord = { rulesKey: [], pruned: [] };
  const entries = scanWorkdir(root, extraRules, prev, () => { ignored++; onIgnored?.(); }, undefined, record);
  return remember(entries, { rulesKey: record.rulesKey.join('\0\0'), pruned: record.pruned, ignored });
}

/**
 * Whether a racy entry of the last sync's manifest (RACY_MS: files written just before it, as
 * right after a checkout) may keep its hash instead of being read again: the file's inode has
 * not changed since shortly before the last scan (not in `changed`), and that scan's own entry
 * holds the same stat and hash — a hash read after that scan began, so of the content the file
 * still has. A manifest from another scan than the memo's (a sync that failed before its
 * commit) differs there and is hashed as before.
 */
function settledSince(memo: Memo, changed: Map<string, Listed>): (rel: string, old: ManifestEntry) => boolean {
  let byPath: Map<string, ManifestEntry> | undefined;
  return (rel, old) => {
    if (!old.h || changed.has(rel)) return false;
    byPath ??= new Map(memo.entries.map((e) => [e.p, e]));
    const m = byPath.get(rel);
    return !!m && m.t === 'f' && m.h === old.h && m.s === old.s && m.m === old.m && m.x === old.x;
  };
}

function rulesThroughLink(entries: ManifestEntry[]): boolean {
  return entries.some((e) => e.t === 'l' && /(^|\/)\.(git|sky)ignore$/.test(e.p));
}

/**
 * The last scan's entries with the new stats of files and links changed in place since, or
 * undefined when the changes are more than that (see way 1 above). The last scan's entry
 * objects are shared, not changed: a changed one is replaced by a new object.
 */
function patched(memo: Memo, changed: Map<string, Listed>): ManifestEntry[] | undefined {
  const last = memo.entries;
  const out = last.slice();
  // Racy no longer (manifest.ts RACY_MS): the file's inode did not change since.
  const racyFrom = Date.now() - RACY_MS;
  out.forEach((e, i) => {
    if (e.r && e.m < racyFrom) {
      const { r: _, ...rest } = e;
      out[i] = rest;
    }
  });
  if (!changed.size) return out;
  // Kept on the memo, and so on the next one (remember(entries, last)): a one-file sync does
  // not index 20,000 paths again.
  let index = memo.index;
  if (!index) {
    index = memo.index = new Map<string, number>();
    last.forEach((e, i) => index!.set(e.p, i));
  }
  for (const [rel, st] of changed) {
    const i = index.get(rel);
    const old = i === undefined ? undefined : last[i];
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (i === undefined || !old || st.isDirectory() || name === '.gitignore' || name === '.skyignore') return undefined;
    const x = st.mode & 0o7777;
    if (st.isSymbolicLink() && old.t === 'l') {
      if (st.link !== old.l) return undefined; // a new target is a new link: a rename, really
      out[i] = { ...old, m: st.mtimeMs, x };
    } else if (st.isFile() && old.t === 'f') {
      // Its inode changed: even with size and mtime as before (set back, or the same tick), the
      // content may differ, so its hash decides (r).
      out[i] = { ...old, s: st.size, m: st.mtimeMs, x, h: '', r: 1 };
    } else {
      return undefined;
    }
  }
  return out;
}

/** What the scan that returned `entries` knew, while it is still this tree's last scan. */
export function scanMemoFor(root: string, extraRules: string, entries: ManifestEntry[]): ScanMemo | undefined {
  const m = memo.get(treeKey(root, extraRules));
  return m && m.entries === entries ? { startedMs: m.startedMs, pruned: m.pruned, rulesKey: m.rulesKey, ignored: m.ignored } : undefined;
}

/**
 * A scan of another process (scanMemoFile.ts), whose result `entries()` gives (the manifest it
 * committed): this process's next scan may start from it, unless it knows a later one (then
 * the entries are not made: an editor that syncs often keeps its own).
 */
export function seedScanMemo(root: string, extraRules: string, entries: () => ManifestEntry[], m: ScanMemo): void {
  const key = treeKey(root, extraRules);
  const mine = memo.get(key);
  // Its start on this process's monotonic clock, as the wall clock reads now.
  const monoMs = performance.now() - (Date.now() - m.startedMs);
  if (!mine || mine.startedMs < m.startedMs) memo.set(key, { ...m, entries: entries(), monoMs });
}

/** Forgets every tree's last scan, as a new process starts (tests). */
export function forgetScanMemos(): void {
  memo.clear();
}
