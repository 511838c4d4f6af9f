// A workdir sync that sends only what changed since the last sync that finished, proven by
// the node holding that sync's token (see manifest.ts, nodeListing.ts, manifestNode.ts). Anything that does
// not add up — no manifest here, none or another there, a concurrent sync — means a full sync.
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Transport } from '../transport';
import { shellQuote } from '../transport/shellQuote';
import { deltaOf, digestOf, sha256, type ManifestDelta, type ManifestEntry } from './manifest';
import { commitManifest, discardManifest, manifestDigest, prepareManifestDir, stageManifest, type StagedManifest } from './manifestStore';
import { MANIFEST_NODE_PY } from './manifestNode';
import { archiveDelta } from './deltaArchive';
import { listedDirs, nodeDrift, nodeListScript } from './nodeListing';
import type { ArchiveStats } from './workdirArchive';
import { trace } from '../util/trace';

export interface ManifestSyncStats extends ArchiveStats {
  /** 'delta': only changes were sent; 'full': everything (first sync, or the node disagreed); 'skipped': --fast and nothing changed. */
  mode: 'delta' | 'full' | 'skipped';
  removed: number;
}

export interface ManifestSyncRequest {
  transport: Transport;
  python: string;
  localDir: string;
  /** The workdir on the node, as a checked shell word, and as a string (for the state name). */
  remoteDir: string;
  remoteDirWord: string;
  /** The node directory where the node's manifest lives (absolute). */
  nodeStateDir: string;
  /** The local manifest file (manifestStore.ts manifestFile), and its identity when `prev` was read. */
  localFile: string;
  readId?: string;
  /** The last finished sync's entries (manifestStore.ts readManifest) and the workdir now. */
  prev: Map<string, ManifestEntry>;
  /** A manifest staged by a sync killed before it put it in place (readStagedManifest). */
  staged?: Map<string, ManifestEntry>;
  cur: ManifestEntry[];
  ignored: number;
  /** The node's answer for `prev`, when the caller asked it while it scanned (startCheck). */
  checked?: Promise<NodeAnswer | undefined>;
  /** The node's apply, when the caller started it while it scanned (startApply). */
  pending?: PendingApply;
  /** Told the local manifest file's identity once `cur` is committed as it. */
  onCommitted?(manifestId: string): void;
  /**
   * When given, a sync that finished on the node returns at once and its local manifest (staged
   * while the node applied) is put in place afterwards, while the caller's next step (an exec's
   * submit) waits on the node: the work is pushed here and settles with undefined, or the error
   * that kept the manifest from being put in place (the next sync is then full).
   */
  deferred?: Promise<Error | undefined>[];
}

/** Raised by the node when its manifest moved under us (another sync finished meanwhile). */
const STALE = 75;

export async function manifestSync(r: ManifestSyncRequest): Promise<ManifestSyncStats> {
  const first = r.pending ?? startApply(r);
  try {
    return await syncWith(first, r);
  } finally {
    first.abandon(); // a no-op once it sent; else its node process ends without touching anything
  }
}

async function syncWith(first: PendingApply, r: ManifestSyncRequest): Promise<ManifestSyncStats> {
  const { cur } = r;
  const stats: ManifestSyncStats = { files: 0, bytes: 0, ignored: r.ignored, mode: 'full', removed: 0 };
  // The new manifest's token while the node's listing is still on its way (it mostly is).
  const token = digestOf(cur);
  // And the delta from our manifest, which the node mostly confirms with nothing drifted: ~10 ms
  // of 20,000 lookups off the path that waits for it. Anything else is made again below.
  const checking = r.checked ?? check(r);
  const likely = r.prev.size ? speculate(() => deltaOf(r.prev, cur, r.localDir)) : undefined;
  const answer = await checking;
  trace('sync: node answered the check');
  const drift = answer?.drift;
  if (answer) {
    const base = manifestDigest(answer.prev);
    const delta = likely && answer.prev === r.prev && !answer.drift.size ? likely : deltaOf(answer.prev, cur, r.localDir, answer.drift);
    trace('sync: delta made');
    const code = await first.send(base, cur, delta, stats, token, answer.nonce);
    trace('sync: delta applied on the node, local manifest in place');
    if (code === 0) return { ...stats, mode: 'delta', removed: delta.remove.length };
    if (code !== STALE) throw new Error(`exit ${code}`);
    stats.files = stats.bytes = 0;
  }
  const code = await (drift ? startApply(r) : first).send('', cur, { send: cur, remove: [], touch: [] }, stats, token);
  if (code !== 0) throw new Error(`exit ${code}`);
  return stats;
}

/** A result made ahead of need, or undefined when making it failed: it is made again, and fails, where it is needed. */
function speculate<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

function nodeStateFile(nodeStateDir: string, remoteDir: string): string {
  return path.posix.join(nodeStateDir, `${sha256(remoteDir).slice(0, 32)}.json`);
}

type CheckArgs = Pick<ManifestSyncRequest, 'transport' | 'python' | 'remoteDir' | 'remoteDirWord' | 'nodeStateDir' | 'prev' | 'staged'>;

/** Which manifest the node holds (the committed one or a staged one), and what drifted since. */
export interface NodeAnswer { prev: Map<string, ManifestEntry>; drift: Set<string>; nonce?: string }

/**
 * Asks the node about `prev` before the local scan, so its walk of the workdir overlaps ours.
 * Undefined when there is no previous sync to ask about. A failure surfaces when awaited.
 */
export function startCheck(r: CheckArgs): Promise<NodeAnswer | undefined> | undefined {
  if (!r.prev.size && !r.staged?.size) return undefined;
  const p = check(r);
  p.catch(() => undefined); // awaited later by manifestSync; the scan may fail first
  return p;
}

/** The manifest the node's token names and what drifted since, or undefined when it names neither. */
async function check(r: CheckArgs): Promise<NodeAnswer | undefined> {
  const staged = r.staged?.size ? r.staged : undefined;
  if (!r.prev.size && !staged) return undefined;
  const base = r.prev.size ? manifestDigest(r.prev) : '-';
  const alt = staged ? manifestDigest(staged) : '';
  const script = nodeListScript(r.python, r.remoteDirWord, nodeStateFile(r.nodeStateDir, r.remoteDir), base, alt);
  const res = await r.transport.execShell(script, { stdin: listedDirs(r.prev, ...(staged ? [staged] : [])) });
  if (res.code !== 0) throw new SyncStepError(`checking the last sync failed: ${res.stderr.toString().trim()}`);
  trace('sync: node listing read');
  return nodeDrift(res.stdout, r.prev, staged);
}

/** An apply whose process is started before its tar is known (startApply). */
export interface PendingApply {
  /** `token`: digestOf(all), when the caller has it already; `nonce`: the drift check's (its last apply, for a delta). */
  send(base: string, all: ManifestEntry[], delta: ManifestDelta, stats: ManifestSyncStats, token?: string, nonce?: string): Promise<number>;
  /** The sync ended without sending: the node process reads nothing and exits untouched. */
  abandon(): void;
}

type ApplyArgs = Pick<ManifestSyncRequest, 'transport' | 'python' | 'remoteDir' | 'remoteDirWord' | 'nodeStateDir' | 'localDir' | 'localFile' | 'readId' | 'onCommitted' | 'deferred'> & Partial<Pick<ManifestSyncRequest, 'prev'>>;

/**
 * Opens the node's apply (channel and Python start) now, so that cost overlaps listing the trees.
 * On success the local manifest is `all`: written while the node unpacks (once the tar is
 * sent, every hash known) and put in place only when the node said 0.
 */
export function startApply(r: ApplyArgs): PendingApply {
  const nodeState = nodeStateFile(r.nodeStateDir, r.remoteDir);
  const stdin = new PassThrough();
  const script = `exec ${shellQuote(r.python)} -S -c ${shellQuote(MANIFEST_NODE_PY)} apply ${r.remoteDirWord} ${shellQuote(nodeState)}`;
  const done = r.transport.execShell(script, { stdin });
  done.catch(() => undefined); // awaited by send; an abandoned apply's end is nobody's business
  let used = false;
  return {
    abandon: () => {
      if (!used) stdin.end();
      used = true;
    },
    send: async (base, all, delta, stats, known, nonce) => {
      if (used) throw new Error('a node apply was used twice');
      const defer = r.deferred;
      // Deferred, the manifest is written after the node applied: a link where it goes is
      // refused now, before anything is sent (abandon() then ends the node's process untouched).
      if (defer) prepareManifestDir(r.localFile);
      used = true;
      const token = known ?? digestOf(all);
      trace('apply: token made');
      const archive = archiveDelta(r.localDir, delta, stats, all);
      let staged: StagedManifest | undefined;
      let stageError: unknown;
      // Staged while the node unpacks, deferred or not: ~40 ms of serializing 20,000 entries
      // overlaps the apply (longer than an exec's submit), and a crash after the node applied
      // leaves it to be offered to the next sync's check (readStagedManifest).
      archive.once('end', () => {
        try {
          trace('apply: tar sent');
          staged = stageManifest(r.localFile, all, token, r.prev);
          trace('apply: local manifest staged');
        } catch (e) {
          stageError = e;
        }
      });
      // A failed read (a file changed size) cuts the node's input: it sees a torn tar and stops.
      archive.once('error', (e) => stdin.destroy(e));
      stdin.write(`${base || '-'} ${token}${base && nonce ? ` ${nonce}` : ''}\n`);
      archive.pipe(stdin);
      try {
        const res = await done;
        trace('apply: node done');
        if (res.code !== 0 && res.code !== STALE) throw new SyncStepError(res.stderr.toString().trim());
        if (res.code !== 0) {
          discardManifest(staged);
          return res.code ?? 1;
        }
        if (defer) {
          defer.push(deferredCommit(r, all, token, stageError ? undefined : staged));
          return 0;
        }
        if (stageError) throw stageError;
        const id = commitManifest(staged ?? stageManifest(r.localFile, all, token, r.prev), r.readId);
        if (id) r.onCommitted?.(id);
        return 0;
      } catch (e) {
        discardManifest(staged);
        throw e;
      }
    },
  };
}

/**
 * Commits `all` (staged while the node applied, or now if that failed) once the caller's
 * synchronous continuation (an exec's submit request) has gone out. A crash before it is in
 * place leaves the staged file, offered to the next sync's check (readStagedManifest).
 */
function deferredCommit(r: ApplyArgs, all: ManifestEntry[], token: string, early?: StagedManifest): Promise<Error | undefined> {
  return new Promise((resolve) => setImmediate(() => {
    let staged = early;
    try {
      if (!staged) {
        staged = stageManifest(r.localFile, all, token, r.prev);
        trace('apply: local manifest staged (deferred)');
      }
      const id = commitManifest(staged, r.readId);
      if (id) r.onCommitted?.(id);
      trace('apply: local manifest in place (deferred)');
      resolve(undefined);
    } catch (e) {
      discardManifest(staged);
      resolve(e instanceof Error ? e : new Error(String(e)));
    }
  }));
}

export class SyncStepError extends Error {}
