// One `file_mounts` entry -> a typed FileMount, following SkyPilot's storage rules
// (sky/data/storage.py `_validate_storage_spec`/`_validate_source`, read for the rules):
// a bucket URL names an existing bucket and takes no `name`; `name` alone creates (or reuses) a
// bucket; `name` + a local `source` creates one and uploads into it; a local `source` needs a
// `name`; a new bucket in COPY mode needs something to copy. The string form `/dst: s3://b/p`
// is a download (COPY), as SkyPilot documents it; the mapping form defaults to MOUNT.

import type { MountMode, StoreKind } from '../storage/types';
import { bucketNameError } from './bucketNames';
import { parseBucketUrl, urlScheme } from './bucketUrl';
import { Reporter, formatPath } from './diagnostics';
import { mountTuning } from './mountTuning';
import { Dict, isDict } from './objects';
import { Path } from './positions';
import { FileMount } from './types';

/** Where a named bucket goes when the entry has no `store`, or why that cannot be decided. */
export type DefaultStore = { store: StoreKind } | { why: string };

export interface MountContext {
  r: Reporter;
  defaultStore: DefaultStore;
  /** True when `s` still holds a reference to an env whose value comes only at launch. */
  pending: (s: string) => boolean;
}

const STORES: Record<string, StoreKind> = { S3: 's3', GCS: 'gcs', AZURE: 'azure', R2: 'r2' };
/** "an S3", "a GCS": the article as the name is spoken. */
const A_STORE: Record<StoreKind, string> = { s3: 'an S3', gcs: 'a GCS', azure: 'an Azure', r2: 'an R2' };
const STORE_ADVICE = 'add store: s3, gcs, azure or r2';

function unsupported(c: MountContext, path: Path, store: string): FileMount {
  c.r.warn(path, `${formatPath(path)}: Skydeck cannot use ${store} storage yet; launching this task will be refused`,
    'Skydeck mounts S3 (s3://), GCS (gs://), Azure Blob (https://<account>.blob.core.windows.net) and R2 (r2://) buckets');
  return { kind: 'unsupported', store };
}

/** The string form: a local path (copied) or a bucket URL (downloaded, COPY). */
export function stringMount(c: MountContext, path: Path, src: string): FileMount | undefined {
  if (urlScheme(src) === undefined) return { kind: 'copy', source: src };
  if (c.pending(src)) return { kind: 'deferred' };
  const u = parseBucketUrl(src);
  if (u.ok) return { kind: 'bucket', mount: { kind: 'url', url: src, mode: 'COPY', ...urlFields(u.url) } };
  if (u.other !== undefined) return unsupported(c, path, u.other);
  c.r.error(path, `${formatPath(path)}: ${u.message}`, u.hint);
  return undefined;
}

function urlFields(u: { store: StoreKind; bucket: string; prefix: string; account?: string }) {
  return u.store === 'azure'
    ? { store: 'azure' as const, bucket: u.bucket, prefix: u.prefix, account: u.account ?? '', container: u.bucket }
    : { store: u.store, bucket: u.bucket, prefix: u.prefix };
}

/** The mapping form `{name, source, store, mode, persistent, config, type}`; the schema has checked the types. */
export function mappingMount(c: MountContext, path: Path, src: Dict): FileMount | undefined {
  const { r } = c;
  const at = (field: string): Path => [...path, field];
  const name = typeof src.name === 'string' ? src.name : undefined;
  const source = src.source as string | string[] | undefined;
  const storeText = typeof src.store === 'string' ? src.store : undefined;
  if ([name, storeText, ...(Array.isArray(source) ? source : [source])].some((s) => typeof s === 'string' && c.pending(s))) {
    return { kind: 'deferred' };
  }
  const mode = (typeof src.mode === 'string' ? src.mode.toUpperCase() : 'MOUNT') as MountMode;
  const upper = storeText?.toUpperCase();
  if (upper === 'VOLUME') return unsupported(c, at('store'), 'volume');
  if (upper !== undefined && !STORES[upper]) return unsupported(c, at('store'), upper);
  const explicitStore = upper ? STORES[upper] : undefined;
  const extra: { config?: Dict; preset?: string } = {};
  if (isDict(src.config)) extra.config = src.config;
  if (typeof src.type === 'string') extra.preset = src.type.toUpperCase();
  const tuning = mountTuning(r, path, src, mode);
  if (tuning === null) return undefined;
  const tuned = tuning ? { tuning } : {};

  if (typeof source === 'string' && urlScheme(source) !== undefined) {
    const u = parseBucketUrl(source);
    if (!u.ok && u.other !== undefined) return unsupported(c, at('source'), u.other);
    if (!u.ok) return void r.error(at('source'), `${formatPath(at('source'))}: ${u.message}`, u.hint);
    if (name !== undefined) {
      return void r.error(at('name'), `${formatPath(path)} gives both a bucket URL source and name: "${name}"`,
        `which did you mean? To use the existing bucket, remove name:; to create bucket "${name}" and upload into it, make source: a local directory`);
    }
    if (explicitStore && explicitStore !== u.url.store) {
      return void r.error(at('store'), `${formatPath(at('store'))} is ${storeText}, but the source is ${A_STORE[u.url.store]} bucket URL`,
        'remove store: since a bucket URL names its store, or fix the URL');
    }
    return { kind: 'bucket', mount: { kind: 'url', url: source, mode, ...urlFields(u.url), ...tuned }, ...extra };
  }

  const local = source === undefined ? [] : Array.isArray(source) ? source : [source];
  if (name === undefined) {
    if (source === undefined) {
      return void r.error(path, `${formatPath(path)} needs "source" or "name"`,
        'give source: a bucket URL (s3://..., gs://...) for an existing bucket, or name: for a bucket Skydeck creates', 'key');
    }
    return void r.error(path, `${formatPath(path)} has a local source but no bucket name to upload it into`,
      `add name: <new-bucket> to upload through a bucket, or copy straight to the node with ${String(path[path.length - 1])}: ${local[0]}`, 'key');
  }
  if (!localSourcesOk(r, at('source'), source)) return undefined;
  if (source === undefined && mode === 'COPY') {
    return void r.error(at('mode'), `${formatPath(path)}: mode COPY needs a source; a new bucket "${name}" would be empty`,
      'give source: a local directory to upload, use mode: MOUNT for an empty bucket to write into, or source: <bucket URL> for an existing bucket');
  }
  const scheme = urlScheme(name);
  if (scheme !== undefined) {
    return void r.error(at('name'), `${formatPath(at('name'))} is a bucket name, not a URL`,
      `to use an existing bucket write source: ${name}; to create one write its bare name, e.g. name: my-bucket with store:`);
  }
  const store = explicitStore ?? ('store' in c.defaultStore ? c.defaultStore.store : undefined);
  if (!store) {
    return void r.error(path, `${formatPath(path)} does not say which store bucket "${name}" is in, and ${(c.defaultStore as { why: string }).why}`, STORE_ADVICE, 'key');
  }
  const nameError = bucketNameError(store, name);
  if (nameError) return void r.error(at('name'), nameError.message, nameError.hint);
  const mount = { kind: 'named' as const, store, name, mode, persistent: src.persistent !== false, ...tuned };
  if (typeof source === 'string') return { kind: 'bucket', mount: { ...mount, localSource: source }, ...extra };
  if (Array.isArray(source)) return { kind: 'bucket', mount: { ...mount, localFiles: source }, ...extra };
  return { kind: 'bucket', mount, ...extra };
}

/** Local upload sources, as SkyPilot checks them before looking at the disk (that is done at launch). */
function localSourcesOk(r: Reporter, path: Path, source: string | string[] | undefined): boolean {
  if (source === undefined) return true;
  const list = Array.isArray(source) ? source : [source];
  const where = (i: number): Path => (Array.isArray(source) ? [...path, i] : path);
  for (const [i, s] of list.entries()) {
    if (urlScheme(s) !== undefined) {
      r.error(where(i), `${formatPath(where(i))}: a list source holds local paths only, got a URL`, 'mount each bucket at its own destination');
      return false;
    }
    if (s.length > 1 && s.endsWith('/')) {
      r.error(where(i), `${formatPath(where(i))} ends with "/"`, `write it without the trailing slash: ${s.replace(/\/+$/, '')}`);
      return false;
    }
  }
  const base = (s: string) => s.replace(/\/+$/, '').split('/').pop() ?? s;
  const seen = new Map<string, number>();
  for (const [i, s] of list.entries()) {
    const b = base(s);
    if (seen.has(b)) {
      r.error(where(i), `${formatPath(where(i))}: "${b}" is also the name of item ${seen.get(b)}; both would land at the bucket root`, 'rename one, or mount them in separate buckets');
      return false;
    }
    seen.set(b, i);
  }
  return true;
}
