// The manifest of a synced workdir: what was sent last time, so the next sync sends only what
// changed. The local copy carries content hashes and exact mtimes; the node keeps only its view
// (path, type, size, whole-second mtime, link target), and the sha256 of that view's bytes
// — the digest — is how the two sides prove they agree before a delta is trusted.
import * as fs from 'node:fs';
import { createHash } from 'node:crypto';
import { walkWorkdir, type TreeView, type WalkRecord } from './workdirWalk';

export interface ManifestEntry {
  p: string; // posix path below the root
  t: 'f' | 'd' | 'l';
  s: number; // bytes (files)
  m: number; // mtime in ms
  x: number; // permission bits
  h: string; // sha256 of the content (files) or the link target (symlinks); '' for dirs
  l?: string; // symlink target
  /** Racy: the mtime was this recent when the sync began, so a later same-size write in the same clock tick keeps it; the next sync hashes it. */
  r?: 1;
}

/**
 * A write lands in the file system's clock tick (a few ms; a whole second or two on some file
 * systems): a file written again in the tick its content was read in keeps size and mtime.
 * Content is read only after the scan starts, so a file older than this before it is safe.
 */
export const RACY_MS = 3000;

/** A walk of `root` as entries, hashes reused from `prev` where the stat is unchanged. */
export function scanWorkdir(
  root: string, extraRules: string, prev: Map<string, ManifestEntry>, onIgnored?: () => void, view?: TreeView, record?: WalkRecord,
  settled?: (rel: string, old: ManifestEntry) => boolean,
): ManifestEntry[] {
  const out: ManifestEntry[] = [];
  const racyFrom = Date.now() - RACY_MS;
  for (const { rel, abs, stat: st, link } of walkWorkdir(root, extraRules, onIgnored, view, record)) {
    const x = st.mode & 0o7777;
    if (st.isDirectory()) out.push({ p: rel, t: 'd', s: 0, m: st.mtimeMs, x, h: '' });
    else if (st.isSymbolicLink()) {
      const l = link ?? fs.readlinkSync(abs);
      out.push({ p: rel, t: 'l', s: 0, m: st.mtimeMs, x, h: sha256(l), l });
    } else if (st.isFile()) {
      const old = prev.get(rel);
      // A racy old entry's hash holds too when `settled` proves the file untouched since it was read.
      const same = old && old.t === 'f' && old.s === st.size && old.m === st.mtimeMs && old.x === x && (!old.r || !!settled?.(rel, old));
      // '' = not known yet: hashed while it is sent, or before, to tell a touch from an edit.
      const e: ManifestEntry = { p: rel, t: 'f', s: st.size, m: st.mtimeMs, x, h: same ? old.h : '' };
      if (st.mtimeMs >= racyFrom) e.r = 1;
      out.push(e);
    }
    // Sockets, fifos and devices are not synced.
  }
  return out;
}

/** The node's view of a manifest, as bytes (JSON lines-free, deterministic). */
export function nodeView(entries: ManifestEntry[]): Buffer {
  const rows = entries.map((e) => (e.t === 'l' ? [e.p, e.t, e.s, wholeSeconds(e.m), e.l ?? ''] : [e.p, e.t, e.s, wholeSeconds(e.m)]));
  return Buffer.from(JSON.stringify({ v: 1, entries: rows }));
}

export function digestOf(entries: ManifestEntry[]): string {
  return sha256(nodeView(entries));
}

/** What tar records, and so the node's mtime: whole seconds. */
export function wholeSeconds(ms: number): number {
  return Math.max(0, Math.floor(ms / 1000));
}

export interface ManifestDelta {
  /** Entries to send (new, changed, or drifted on the node). */
  send: ManifestEntry[];
  /** Paths gone locally, deepest first. */
  remove: string[];
  /** Files whose content is unchanged but whose mtime moved: the node only sets the time. */
  touch: ManifestEntry[];
}

/**
 * What to send so the node, holding `prev`, ends up holding `cur`. `drift` names paths the node
 * reported as not matching `prev` (a job edited or removed them): they are sent again.
 */
export function deltaOf(prev: Map<string, ManifestEntry>, cur: ManifestEntry[], root: string, drift: Set<string> = new Set()): ManifestDelta {
  const send: ManifestEntry[] = [];
  const touch: ManifestEntry[] = [];
  // Paths of cur are distinct: when every one of prev's is among them, nothing was removed,
  // and the set of cur's paths (20,000 strings) is not made.
  let kept = 0;
  for (const e of cur) {
    const old = prev.get(e.p);
    if (old) kept++;
    if (!old || old.t !== e.t || drift.has(e.p)) send.push(e);
    else if (e.t === 'l' && old.l !== e.l) send.push(e);
    else if (e.t === 'f' && (old.s !== e.s || old.x !== e.x)) send.push(e);
    else if (e.t === 'f' && (old.m !== e.m || old.r || e.r)) {
      // A racy entry (see RACY_MS) may have been rewritten in its tick: its hash decides.
      if (!e.h) e.h = hashFile(`${root}/${e.p}`);
      if (e.h !== old.h) send.push(e);
      else if (old.m !== e.m) touch.push(e);
    }
  }
  if (kept === prev.size) return { send, remove: [], touch };
  const here = new Set(cur.map((e) => e.p));
  const remove = [...prev.keys()].filter((p) => !here.has(p)).sort((a, b) => depth(b) - depth(a) || (a < b ? 1 : -1));
  return { send, remove, touch };
}

export function isEmptyDelta(d: ManifestDelta): boolean {
  return !d.send.length && !d.remove.length && !d.touch.length;
}

function depth(p: string): number {
  return p.split('/').length;
}

export function hashFile(file: string): string {
  const h = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

export function sha256(b: string | Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}
