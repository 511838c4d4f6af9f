import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import type { Transport } from '../transport';
import { shellQuote } from '../transport/shellQuote';
import { describeFileMount, printable, type GitWorkdir, type Task } from '../task';
import { checkGitWorkdir, GitWorkdirError, syncGitWorkdir } from '../sync/gitWorkdir';
import type { NamedBucketMount } from '../storage/types';
import { archiveDirectory, archiveFile } from '../sync/workdirArchive';
import { deltaOf, isEmptyDelta, sha256, type ManifestEntry } from '../sync/manifest';
import { scanMemoFor, scanWorkdirFast, seedScanMemo } from '../sync/fastScan';
import { readScanMemo, writeScanMemo } from '../sync/scanMemoFile';
import { manifestFile, manifestIdentity, readManifest, readStagedManifest } from '../sync/manifestStore';
import { manifestSync, startApply, startCheck, type ManifestSyncStats } from '../sync/manifestSync';
import { OpsError } from './errors';
import { remoteDirWord, remotePathWord } from './remotePath';
import { PLACE_TREE_PY } from '../sync/placeTree';
import { trace } from '../util/trace';

export { localPath } from '../task/localPath';
import { localPath } from '../task/localPath';


/**
 * Checks, before anything is provisioned, that every local source exists and is supported,
 * including local directories to upload into buckets. Bucket mounts themselves are planned in
 * bucketPlan.ts and set up on the nodes by bucketAttach.ts.
 */
export function checkSyncSources(task: Task, taskDir: string): void {
  if (task.workdir !== undefined) {
    if (typeof task.workdir !== 'string') {
      checkGitSource(task.workdir);
    } else {
      const wd = localPath(task.workdir, taskDir);
      if (!fs.existsSync(wd) || !fs.statSync(wd).isDirectory()) {
        throw new OpsError('usage', printable(`workdir ${task.workdir} (${wd}) is not a directory on this machine`));
      }
    }
  }
  const unsupported: string[] = [];
  for (const [dst, m] of Object.entries(task.fileMounts)) {
    remotePathWord(dst); // refuses an escaping destination before anything is provisioned
    if (m.kind === 'copy') checkCopySource(dst, m.source, taskDir);
    else if (m.kind === 'bucket' && m.mount.kind === 'named') checkUploadSources(dst, m.mount, taskDir);
    else if (m.kind !== 'bucket') unsupported.push(`file_mounts ${dst}: ${describeFileMount(m)}`);
  }
  if (unsupported.length) {
    throw new OpsError('unavailable', printable(`${unsupported.join('; ')} — this store is parsed but not supported by this version; use S3, GCS, Azure Blob or R2`));
  }
}

/** A git workdir is cloned on the node: only its URL and ref are checked here. */
function checkGitSource(w: GitWorkdir): void {
  try {
    checkGitWorkdir(w);
  } catch (e) {
    if (e instanceof GitWorkdirError) throw new OpsError('usage', printable(e.message));
    throw e;
  }
}

/** Clones or updates a git workdir on the node (its credentials from `envs`, see gitAuth.ts). */
export async function cloneWorkdir(t: Transport, workdir: string, w: GitWorkdir, envs: Record<string, string>): Promise<{ commit: string }> {
  try {
    return await syncGitWorkdir(t, workdir, w, envs);
  } catch (e) {
    if (e instanceof GitWorkdirError) throw new OpsError(e.kind, printable(e.message));
    throw e;
  }
}

function checkCopySource(dst: string, source: string, taskDir: string): void {
  const src = localPath(source, taskDir);
  if (!fs.existsSync(src)) throw new OpsError('usage', printable(`file_mounts ${dst}: source ${source} (${src}) does not exist`));
  if ((dst === '~' || dst === '/') && !fs.statSync(src).isDirectory()) {
    throw new OpsError('usage', printable(`file_mounts ${dst}: source ${source} is a file, and a file cannot replace the directory ${dst}: name the file, e.g. ${dst === '/' ? '' : '~'}/${path.basename(src)}`));
  }
}

/** SkyPilot's rule: a single upload source is a directory; files go in the list form. */
function checkUploadSources(dst: string, m: NamedBucketMount, taskDir: string): void {
  for (const source of m.localFiles ?? (m.localSource === undefined ? [] : [m.localSource])) {
    const src = localPath(source, taskDir);
    if (!fs.existsSync(src)) {
      throw new OpsError('usage', printable(`file_mounts ${dst}: source ${source} (${src}) does not exist; it is uploaded into bucket ${m.name}`));
    }
    if (m.localSource !== undefined && !fs.statSync(src).isDirectory()) {
      throw new OpsError('usage', printable(`file_mounts ${dst}: source ${source} is a file; a bucket is filled from a directory: write source: [${source}] to upload one file, or ${dst}: ${source} to copy it to the node`));
    }
  }
}

/**
 * Unpacks a tar stream into `dirWord` (a shell word) on the node: first into a private temp
 * dir beside it, then each entry is renamed into place (see PLACE_TREE_PY).
 */
async function untar(t: Transport, python: string, dirWord: string, archive: Readable, what: string): Promise<void> {
  const script =
    `set -e; D=${dirWord}; mkdir -p "$D"; T=$(mktemp -d "$D/.skydeck-sync.XXXXXX"); ` +
    `trap 'rm -rf "$T"' EXIT; tar -xf - -C "$T"; ${shellQuote(python)} -c ${shellQuote(PLACE_TREE_PY)} "$T" "$D"`;
  const r = await t.execShell(script, { stdin: archive });
  if (r.code !== 0) throw new OpsError('failed', `syncing ${what} to ${t.description} failed: ${r.stderr.toString().trim()}`);
}

/** Syncs under way, by (node, remote dir, local dir), each with the content it is sending. */
const inFlight = new Map<string, { content: () => string; done: Promise<ManifestSyncStats> }[]>();
/**
 * The last sync to a place that finished while others to it were still scanning (they read the
 * manifest before it committed, so without it they would find the node moved and send it all).
 * Dropped once no sync of that place is left running.
 */
const finished = new Map<string, { content: () => string; done: Promise<ManifestSyncStats>; at: number }>();
const running = new Map<string, number>();
let clock = 0;

function enter(place: string): number {
  running.set(place, (running.get(place) ?? 0) + 1);
  return ++clock;
}

function leave(place: string, ok?: { content: () => string; done: Promise<ManifestSyncStats> }): void {
  const n = (running.get(place) ?? 1) - 1;
  if (n > 0) {
    running.set(place, n);
    if (ok) finished.set(place, { ...ok, at: ++clock });
  } else {
    running.delete(place);
    finished.delete(place);
  }
}

/** Where a workdir sync keeps its manifests: on the node (absolute dir) and here. */
export interface SyncState {
  nodeStateDir: string;
  localStateDir: string;
}

/** Where the ops keep sync manifests: beside the agent on the node, in the workspace here. */
export function syncStateOf(workspaceRoot: string, agentBase: string): SyncState {
  return { nodeStateDir: `${agentBase}/sync`, localStateDir: path.join(workspaceRoot, '.skydeck', 'sync') };
}

/**
 * Syncs a workdir, sending only what changed since the last sync that finished (manifestSync.ts;
 * deletions propagate, files a job changed on the node are sent again, as with rsync). The node
 * is asked about the last sync while the local tree is scanned. Many execs of one task at once
 * (a sweep) would each upload the same tree; a sync of identical content to the same place that
 * is already under way is joined instead.
 */
export async function syncWorkdir(
  t: Transport, python: string, localDir: string, remoteDir: string, state: SyncState, trustLocal = false,
  deferred?: Promise<Error | undefined>[],
): Promise<ManifestSyncStats> {
  const localFile = manifestFile(state.localStateDir, t.description, remoteDir, localDir);
  const place = localFile; // (node, remote dir, real local dir): an alias of the tree joins too
  const startedAt = enter(place);
  let handedOff = false;
  try {
    return await syncUnder(place, startedAt, () => (handedOff = true), t, python, localDir, remoteDir, state, trustLocal, localFile, deferred);
  } finally {
    if (!handedOff) leave(place);
  }
}

async function syncUnder(
  place: string, startedAt: number, handOff: () => void,
  t: Transport, python: string, localDir: string, remoteDir: string, state: SyncState, trustLocal: boolean, localFile: string,
  deferred: Promise<Error | undefined>[] | undefined,
): Promise<ManifestSyncStats> {
  const skip = '.skydeck-sync.*\n';
  trace('sync: start');
  const readId = manifestIdentity(localFile); // before the read: a commit in between is seen at ours
  const prev = readManifest(localFile) ?? new Map<string, ManifestEntry>();
  trace('sync: local manifest read');
  // Another process's scan of this tree (the CLI's last exec): the scan may start from it.
  if (prev.size && readId !== 'none' && manifestIdentity(localFile) === readId) {
    const memo = readScanMemo(localFile, readId);
    if (memo) seedScanMemo(localDir, skip, () => [...prev.values()].map((e) => ({ ...e })), memo);
  }
  let scanned: ManifestEntry[] | undefined;
  const onCommitted = (id: string) => {
    const memo = scanned && scanMemoFor(localDir, skip, scanned);
    if (memo) writeScanMemo(localFile, id, memo);
  };
  const staged = readStagedManifest(localFile);
  const where = { transport: t, python, remoteDir, remoteDirWord: remoteDirWord(remoteDir), nodeStateDir: state.nodeStateDir, prev, staged };
  const checked = trustLocal ? undefined : startCheck(where);
  // The node's apply starts now too (its channel and Python), unless --fast may skip it.
  const pending = trustLocal ? undefined : startApply({ ...where, localDir, localFile, readId, onCommitted, deferred });
  let ignored = 0;
  let cur: ManifestEntry[];
  try {
    cur = scanned = await scanWorkdirFast(localDir, skip, prev, () => ignored++);
  } catch (e) {
    pending?.abandon();
    throw e;
  }
  trace('sync: local tree scanned');
  // --fast: nothing changed here since the last sync that finished → the node is not asked.
  if (trustLocal && prev.size && isEmptyDelta(deltaOf(prev, cur, localDir))) return { files: 0, bytes: 0, ignored, mode: 'skipped', removed: 0 };
  // The content is hashed only when another sync to the same place is under way, or finished
  // after this one began.
  // By what the scan saw (path, kind, size, mtime, mode, link): the hashes are filled in later,
  // in place, by the sync itself, and the racy marks depend on when each scan began.
  let mine: string | undefined;
  const content = () => (mine ??= sha256(JSON.stringify(cur, (k, v: unknown) => (k === 'h' || k === 'r' ? undefined : v))));
  const last = finished.get(place);
  const same = inFlight.get(place)?.find((s) => s.content() === content()) ?? (last && last.at > startedAt && last.content() === content() ? last : undefined);
  if (same) {
    pending?.abandon();
    return same.done;
  }
  handOff();
  let ok = false;
  const done: Promise<ManifestSyncStats> = manifestSync({ ...where, localDir, localFile, readId, cur, ignored, checked, pending, onCommitted, deferred })
    .then((r) => { ok = true; return r; })
    .catch((e: unknown) => { throw new OpsError('failed', `syncing workdir ${localDir} to ${t.description} failed: ${(e as Error).message}`); })
    .finally(() => {
      const left = (inFlight.get(place) ?? []).filter((s) => s.done !== done);
      if (left.length) inFlight.set(place, left);
      else inFlight.delete(place);
      leave(place, ok ? { content, done } : undefined);
    });
  inFlight.set(place, [...(inFlight.get(place) ?? []), { content, done }]);
  return done;
}

export async function syncFileMounts(t: Transport, python: string, task: Task, taskDir: string): Promise<number> {
  let n = 0;
  for (const [dst, m] of Object.entries(task.fileMounts)) {
    if (m.kind !== 'copy') continue;
    await copyToNode(t, python, localPath(m.source, taskDir), dst);
    n++;
  }
  return n;
}

/** A local file or directory copied whole to `dst` on the node (a file mount's copy). */
export async function copyToNode(t: Transport, python: string, src: string, dst: string): Promise<void> {
  if (fs.statSync(src).isDirectory()) await untar(t, python, remotePathWord(dst), archiveDirectory(src), `file mount ${dst}`);
  else await untar(t, python, remotePathWord(path.posix.dirname(dst)), archiveFile(src, path.posix.basename(dst)), `file mount ${dst}`);
}
