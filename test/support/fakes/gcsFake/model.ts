// The state of the fake GCS and its resources rendered as the JSON API v1 shapes them:
// Bucket (https://cloud.google.com/storage/docs/json_api/v1/buckets#resource) and Object
// (https://cloud.google.com/storage/docs/json_api/v1/objects#resource). int64 fields (size,
// generation, metageneration, projectNumber) are JSON strings, as the API sends them.
import { createHash } from 'node:crypto';
import { crc32cBase64 } from './crc32c';
import { invalid } from './errors';

export interface FakeObject {
  name: string;
  data: Buffer;
  contentType: string;
  generation: string;
  created: string;
  metadata?: Record<string, string>;
}

export interface FakeBucket {
  name: string;
  project: string;
  location: string;
  storageClass: string;
  labels: Record<string, string>;
  created: string;
  updated: string;
  metageneration: number;
  objects: Map<string, FakeObject>;
}

export class GcsModel {
  readonly buckets = new Map<string, FakeBucket>();
  private gen = Date.now() * 1000;
  /** The numeric id the API reports for each project (projectNumber). */
  readonly projectNumbers = new Map<string, string>();

  generation(): string {
    return String(++this.gen);
  }

  projectNumber(project: string): string {
    let n = this.projectNumbers.get(project);
    if (!n) this.projectNumbers.set(project, (n = String(100000000000 + this.projectNumbers.size + 1)));
    return n;
  }
}

/** Bucket naming rules (https://cloud.google.com/storage/docs/buckets#naming), the dot-free subset checked in full. */
export function checkBucketName(name: string): void {
  if (!/^[a-z0-9][a-z0-9_.-]{1,61}[a-z0-9]$/.test(name) || name.startsWith('goog') || /google|g00gle/.test(name)) {
    throw invalid(`Invalid bucket name: '${name}'`);
  }
}

/** Label rules (https://cloud.google.com/storage/docs/tags-and-labels): keys and values ≤ 63, lowercase letters, digits, _ and -; keys start with a letter. */
export function checkLabels(labels: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(labels)) {
    if (!/^[a-z][a-z0-9_-]{0,62}$/.test(k)) throw invalid(`Invalid argument: label key '${k}' is invalid.`);
    if (v !== null && (typeof v !== 'string' || !/^[a-z0-9_-]{0,63}$/.test(v))) throw invalid(`Invalid argument: label value '${String(v)}' is invalid.`);
  }
}

const etag = (s: string): string => Buffer.from(createHash('md5').update(s).digest()).toString('base64').slice(0, 12);

export function renderBucket(m: GcsModel, b: FakeBucket, base: string): Record<string, unknown> {
  return {
    kind: 'storage#bucket',
    selfLink: `${base}/storage/v1/b/${b.name}`,
    id: b.name,
    name: b.name,
    projectNumber: m.projectNumber(b.project),
    metageneration: String(b.metageneration),
    location: b.location,
    storageClass: b.storageClass,
    etag: etag(`${b.name}/${b.metageneration}`),
    timeCreated: b.created,
    updated: b.updated,
    locationType: /-/.test(b.location) ? 'region' : 'multi-region',
    iamConfiguration: { bucketPolicyOnly: { enabled: true }, uniformBucketLevelAccess: { enabled: true }, publicAccessPrevention: 'inherited' },
    ...(Object.keys(b.labels).length ? { labels: { ...b.labels } } : {}),
  };
}

export function renderObject(b: FakeBucket, o: FakeObject, base: string): Record<string, unknown> {
  const path = `b/${b.name}/o/${encodeURIComponent(o.name)}`;
  return {
    kind: 'storage#object',
    id: `${b.name}/${o.name}/${o.generation}`,
    selfLink: `${base}/storage/v1/${path}`,
    mediaLink: `${base}/download/storage/v1/${path}?generation=${o.generation}&alt=media`,
    name: o.name,
    bucket: b.name,
    generation: o.generation,
    metageneration: '1',
    contentType: o.contentType,
    storageClass: b.storageClass,
    size: String(o.data.length),
    md5Hash: createHash('md5').update(o.data).digest('base64'),
    crc32c: crc32cBase64(o.data),
    etag: etag(`${b.name}/${o.name}/${o.generation}`),
    timeCreated: o.created,
    updated: o.created,
    timeStorageClassUpdated: o.created,
    ...(o.metadata ? { metadata: o.metadata } : {}),
  };
}

/**
 * One page of a list (buckets.list / objects.list: `maxResults`, `pageToken`; the response's
 * `nextPageToken` only while more remain). The token here is the last name returned, as GCS's
 * tokens are name-ordered; `pageSize` caps pages below what a caller asks, as the service may.
 */
export function pageOf<T extends { name: string }>(all: T[], q: URLSearchParams, pageSize: number): { items: T[]; nextPageToken?: string } {
  const raw = q.get('maxResults');
  const asked = raw === null ? 1000 : Number(raw);
  if (!Number.isInteger(asked) || asked < 1) throw invalid(`Invalid value for maxResults: ${raw}`);
  const size = Math.min(asked, pageSize, 1000);
  const token = q.get('pageToken');
  const after = token ? Buffer.from(token, 'base64url').toString('utf8') : undefined;
  const sorted = [...all].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rest = after === undefined ? sorted : sorted.filter((x) => x.name > after);
  const items = rest.slice(0, size);
  return rest.length > size ? { items, nextPageToken: Buffer.from(items[items.length - 1].name).toString('base64url') } : { items };
}
