// The local copy of a sync manifest, in <workspace>/.skydeck/sync/<key>.json. The workspace may
// come from someone else, so a file is checked entry by entry when read and anything odd means
// "no manifest" (a full sync). Its digest is never stored: it is recomputed from the entries
// and must equal the node's, so a tampered list cannot pass for the node's.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { digestOf, sha256, type ManifestEntry } from './manifest';

/** Far above a 20,000-file workdir (~3 MB); a bigger file is refused unread. */
const MAX_BYTES = 256 * 1024 * 1024;
const HEX64 = /^[0-9a-f]{64}$/;

/** The state file for one (node, remote dir, local dir) triple. */
export function manifestFile(stateDir: string, node: string, remoteDir: string, localDir: string): string {
  // The real path: the same tree named through a link (or another spelling) must find the same
  // manifest, or its sync is full and deletes nothing on the node.
  let local: string;
  try {
    local = fs.realpathSync(localDir);
  } catch {
    local = path.resolve(localDir);
  }
  return path.join(stateDir, `${sha256(`${node}\0${remoteDir}\0${local}`).slice(0, 32)}.json`);
}

/** Why a path cannot be an entry of a manifest, or undefined. Deletions come from these names. */
export function entryPathProblem(p: unknown): string | undefined {
  if (typeof p !== 'string' || !p) return 'not a non-empty string';
  // A backslash is an ordinary character on the (POSIX) node: refusing it made every sync of
  // a tree holding one full from a new process, and a full sync deletes nothing.
  if (p.includes('\0')) return 'has a NUL';
  if (p.startsWith('/')) return 'is absolute';
  if (p.split('/').some((s) => s === '' || s === '.' || s === '..')) return 'has an empty, "." or ".." segment';
  return undefined;
}

function entryOk(e: unknown): e is ManifestEntry {
  if (!e || typeof e !== 'object') return false;
  const o = e as Record<string, unknown>;
  const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  if (entryPathProblem(o.p) || !num(o.s) || !num(o.m) || !Number.isInteger(o.x) || (o.x as number) < 0 || (o.x as number) > 0o7777) return false;
  if (o.t === 'd') return o.h === '';
  if (o.t === 'f') return Number.isInteger(o.s) && typeof o.h === 'string' && (o.h === '' || HEX64.test(o.h));
  if (o.t === 'l') return typeof o.l === 'string' && !o.l.includes('\0') && o.h === sha256(o.l);
  return false;
}

/**
 * What this process last wrote to each manifest file, keyed by the file's identity then: a
 * re-sync from the same process (the editor, a sweep) skips re-reading and re-checking 20,000
 * entries. Any change to the file (another process, an edit) misses and reads it again.
 */
const written = new Map<string, { id: string; entries: Map<string, ManifestEntry>; digest: string }>();
/** The digests of manifests this process read back from what it wrote (computed at the write). */
const digests = new WeakMap<Map<string, ManifestEntry>, string>();

/** The digest of a manifest's entries (the node's token), remembered when this process wrote it. */
export function manifestDigest(m: Map<string, ManifestEntry>): string {
  let d = digests.get(m);
  if (d === undefined) digests.set(m, (d = digestOf([...m.values()])));
  return d;
}
const identity = (st: fs.Stats) => `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;

/** The entries recorded in `file` (to read, not to change), or undefined (missing, unreadable, malformed, a link). */
export function readManifest(file: string): Map<string, ManifestEntry> | undefined {
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.size > MAX_BYTES) return undefined;
    const mine = written.get(file);
    // Shared, not copied (20,000 entries): a manifest read is only read, never changed.
    if (mine && mine.id === identity(st)) return mine.entries;
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { v?: unknown; entries?: unknown };
    if (doc?.v !== 1 || !Array.isArray(doc.entries)) return undefined;
    const out = new Map<string, ManifestEntry>();
    for (const e of doc.entries) {
      if (!entryOk(e) || out.has(e.p)) return undefined;
      out.set(e.p, e);
    }
    return out;
  } catch {
    return undefined;
  }
}

/**
 * The newest manifest staged beside `file` and never put in place: a sync killed after the node
 * finished but before its rename leaves it, and the node then holds its token. The node is
 * asked about it too (nodeListing.ts), so that sync's deletions are not lost to a full sync.
 */
export function readStagedManifest(file: string): Map<string, ManifestEntry> | undefined {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.tmp-`;
  let newest: { f: string; m: number } | undefined;
  try {
    for (const n of fs.readdirSync(dir)) {
      if (!n.startsWith(prefix)) continue;
      const f = path.join(dir, n);
      const m = fs.lstatSync(f).mtimeMs;
      if (!newest || m > newest.m) newest = { f, m };
    }
  } catch {
    return undefined;
  }
  return newest ? readManifest(newest.f) : undefined;
}

export interface StagedManifest { file: string; tmp: string; entries: Map<string, ManifestEntry>; digest: string }

/**
 * Writes the manifest beside its file without replacing it, so the slow part (20,000 entries)
 * can run while the node applies the sync; commitManifest puts it in place once that finished.
 * `base`: a manifest read or written before (never changed, as every one this module hands
 * out): its entries equal to one of `entries` are kept, not copied — a one-file sync makes one
 * new object, not 20,000 (the garbage of those was ~15 ms of each sync's CPU) — and when it was
 * staged by this process, its text is reused but for the entries that changed (ManifestText).
 */
export function stageManifest(file: string, entries: ManifestEntry[], digest: string, base?: Map<string, ManifestEntry>): StagedManifest {
  const dir = prepareManifestDir(file);
  const tmp = path.join(dir, `.${path.basename(file)}.tmp-${process.pid}-${++staged}`);
  // Copies: the caller's entries may still be changed (a hash filled in) after this.
  const copies = new Map<string, ManifestEntry>();
  const kept: ManifestEntry[] = [];
  const changed: number[] = [];
  const last = base && textOf.get(base);
  // The same paths in the same order as `base`: its text can be patched where entries changed.
  let aligned = last !== undefined && entries.length === base!.size;
  const order = aligned ? base!.keys() : undefined;
  for (const e of entries) {
    const old = base?.get(e.p);
    const same = old !== undefined && sameEntry(old, e);
    const k = same ? old : { ...e };
    if (aligned && order!.next().value !== e.p) aligned = false;
    if (!same) changed.push(kept.length);
    copies.set(k.p, k);
    kept.push(k);
  }
  const text = aligned && changed.length <= MAX_PATCHED ? patchedText(last!, kept, changed) : wholeText(kept);
  textOf.set(copies, text);
  try {
    fs.rmSync(tmp, { force: true });
    fs.writeFileSync(tmp, text.text, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  return { file, tmp, entries: copies, digest };
}

/**
 * A manifest's file text as JSON.stringify({ v: 1, entries }) writes it, and where each entry's
 * JSON starts and ends in it: the next manifest, mostly the same entries, is this text with a
 * few entries replaced (~3 MB serialized again was ~40 ms of each one-file sync).
 */
interface ManifestText { text: string; starts: Uint32Array; ends: Uint32Array }
const textOf = new WeakMap<Map<string, ManifestEntry>, ManifestText>();
const MAX_PATCHED = 1000;
const HEAD = '{"v":1,"entries":[';

function wholeText(kept: ManifestEntry[]): ManifestText {
  const starts = new Uint32Array(kept.length);
  const ends = new Uint32Array(kept.length);
  const parts: string[] = [];
  let at = HEAD.length;
  kept.forEach((e, i) => {
    const j = JSON.stringify(e);
    parts.push(j);
    starts[i] = at;
    ends[i] = at += j.length;
    at++; // the comma
  });
  return { text: `${HEAD}${parts.join(',')}]}`, starts, ends };
}

function patchedText(last: ManifestText, kept: ManifestEntry[], changed: number[]): ManifestText {
  const starts = new Uint32Array(kept.length);
  const ends = new Uint32Array(kept.length);
  const pieces: string[] = [];
  let from = 0;
  let shift = 0;
  let next = 0;
  for (let i = 0; i < kept.length; i++) {
    starts[i] = last.starts[i] + shift;
    if (changed[next] === i) {
      next++;
      const j = JSON.stringify(kept[i]);
      pieces.push(last.text.slice(from, last.starts[i]), j);
      from = last.ends[i];
      shift += j.length - (last.ends[i] - last.starts[i]);
    }
    ends[i] = last.ends[i] + shift;
  }
  pieces.push(last.text.slice(from));
  return { text: pieces.join(''), starts, ends };
}

function sameEntry(a: ManifestEntry, b: ManifestEntry): boolean {
  return a.p === b.p && a.t === b.t && a.s === b.s && a.m === b.m && a.x === b.x && a.h === b.h && a.l === b.l && a.r === b.r;
}
let staged = 0;

/** Makes the directory `file` goes in, refusing a symbolic link on the way; returns it. */
export function prepareManifestDir(file: string): string {
  const dir = path.dirname(file);
  const problem = linkOnTheWay(dir);
  if (problem) throw new Error(problem);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** What a manifest file is now (identity), to tell later whether another sync replaced it. */
export function manifestIdentity(file: string): string {
  try {
    return identity(fs.lstatSync(file));
  } catch {
    return 'none';
  }
}

/**
 * Records the manifest of a sync that finished (atomic: old or new, never half). When the file
 * is no longer the one this sync started from (`readId`), another sync committed meanwhile and
 * may have applied on the node after this one: the file is left alone and the staged one stays
 * beside it, offered to the next sync's check (readStagedManifest): undefined then; else the
 * committed file's identity.
 */
export function commitManifest(s: StagedManifest, readId?: string): string | undefined {
  if (readId !== undefined && manifestIdentity(s.file) !== readId) {
    const now = new Date();
    fs.utimesSync(s.tmp, now, now); // the newest staged file: the one offered
    return undefined;
  }
  written.delete(s.file);
  fs.renameSync(s.tmp, s.file);
  const id = identity(fs.lstatSync(s.file));
  written.set(s.file, { id, entries: s.entries, digest: s.digest });
  digests.set(s.entries, s.digest);
  dropOldStaged(s.file);
  return id;
}

/**
 * Staged manifests left by killed syncs or lost races. Once a sync committed, one staged well
 * before it names an apply older than this one's on the node: no check can use it again. A
 * recent one may be another sync's still under way, and stays.
 */
const STAGED_KEEP_MS = 10 * 60 * 1000;
function dropOldStaged(file: string): void {
  const dir = path.dirname(file);
  const prefix = `.${path.basename(file)}.tmp-`;
  try {
    for (const n of fs.readdirSync(dir)) {
      const f = path.join(dir, n);
      if (n.startsWith(prefix) && Date.now() - fs.lstatSync(f).mtimeMs > STAGED_KEEP_MS) fs.rmSync(f, { force: true });
    }
  } catch {
    // Cleanup only: a file gone meanwhile, or an unreadable dir, changes nothing.
  }
}

export function discardManifest(s: StagedManifest | undefined): void {
  if (s) fs.rmSync(s.tmp, { force: true });
}

// Old or new, never half (a temp file renamed over), but not fsynced, as the node's token
// (manifestNode.ts): after a power cut a stale or torn manifest either fails the read-time
// check or has another digest than the node's token, and the next sync is full. Two fsyncs of
// a 3 MB file were a tenth of a one-file sync.

/** Forgets a manifest (before a sync whose outcome is not known yet). */
export function dropManifest(file: string): void {
  written.delete(file);
  fs.rmSync(file, { force: true });
}

/** A symlink at <ws>/.skydeck or <ws>/.skydeck/sync would send our writes elsewhere. */
function linkOnTheWay(dir: string): string | undefined {
  for (const p of [path.dirname(dir), dir]) {
    try {
      if (fs.lstatSync(p).isSymbolicLink()) return `${p} is a symbolic link; Skydeck keeps sync manifests only in a real directory`;
    } catch {
      // Missing: made below.
    }
  }
  return undefined;
}
