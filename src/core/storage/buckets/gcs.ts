// Google Cloud Storage buckets through @google-cloud/storage 7 (loaded on first use). Skydeck's
// tags are bucket labels (keys and values: ≤ 63 of [a-z0-9_-], lowercase; values are
// lowercased here). Credentials: Google's application-default chain only (ADC file, gcloud's,
// the VM's service account); `authClient` exists so tests can hand a fixed token to a fake.
import type { Bucket, Storage } from '@google-cloud/storage';
import { StorageError } from '../errors';
import { eachLimited, uploadChanged, type Held, type LocalFile } from './localFiles';
import { gcsError, gcsLabel as label } from './gcsErrors';
import { BUCKET_TAGS, type BucketStore, type DeleteProof, type ListedBucket, type UploadProgress, type UploadResult } from './types';

export interface GcsStoreOptions {
  /** Absent: the project of Google's default credentials (GOOGLE_CLOUD_PROJECT, gcloud's config). */
  projectId?: string;
  /** Where new buckets go (a region such as "us-central1" or a multi-region such as "US"). */
  location?: string;
  /** Another endpoint (private endpoint, or a fake in tests), e.g. "http://127.0.0.1:8080". */
  apiEndpoint?: string;
  /** Tests only: a google-auth-library client to use instead of the default chain. */
  authClient?: unknown;
}

/** Files up to this size go in one multipart request (held in memory by the client). */
const MULTIPART_MAX = 8 * 1024 * 1024;

/** Labels as GCS accepts them: values lowercased; anything still invalid is refused, not mangled. */
export function toLabels(name: string, tags: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, raw] of Object.entries(tags)) {
    const v = raw.toLowerCase();
    if (!/^[a-z][a-z0-9_-]{0,62}$/.test(k) || !/^[a-z0-9_-]{0,63}$/.test(v)) {
      throw new StorageError('config', label(name), `the label ${k}=${raw} is not valid in GCS`, 'Label keys and values are at most 63 lowercase letters, digits, _ or -.');
    }
    out[k] = v;
  }
  return out;
}

export class GcsBucketStore implements BucketStore {
  readonly store = 'gcs' as const;
  private client?: Promise<Storage>;

  constructor(private readonly o: GcsStoreOptions) {}

  private async storage(): Promise<Storage> {
    this.client ??= import('@google-cloud/storage').then(({ Storage }) => new Storage({
      projectId: this.o.projectId,
      ...(this.o.apiEndpoint ? { apiEndpoint: this.o.apiEndpoint, useAuthWithCustomEndpoint: true } : {}),
      ...(this.o.authClient ? { authClient: this.o.authClient as never } : {}),
    }));
    return this.client;
  }

  private async bucket(name: string): Promise<Bucket> {
    return (await this.storage()).bucket(name);
  }

  async exists(name: string, signal?: AbortSignal): Promise<boolean> {
    signal?.throwIfAborted();
    try {
      const [yes] = await (await this.bucket(name)).exists();
      return yes;
    } catch (e) {
      throw gcsError(name, 'checking the bucket', e);
    }
  }

  async create(name: string, tags: Record<string, string>, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const labels = toLabels(name, tags);
    try {
      await (await this.storage()).createBucket(name, { location: this.o.location ?? 'US', labels });
    } catch (e) {
      throw gcsError(name, 'creating the bucket', e);
    }
  }

  async tags(name: string, signal?: AbortSignal): Promise<Record<string, string>> {
    signal?.throwIfAborted();
    try {
      const [meta] = await (await this.bucket(name)).getMetadata();
      return { ...((meta.labels ?? {}) as Record<string, string>) };
    } catch (e) {
      throw gcsError(name, 'reading the bucket\'s labels', e);
    }
  }

  async listSkydeck(signal?: AbortSignal): Promise<ListedBucket[]> {
    signal?.throwIfAborted();
    // buckets.list has no label filter: every page of the project's buckets, filtered here.
    try {
      const [all] = await (await this.storage()).getBuckets({ autoPaginate: true });
      return all.filter((b) => b.metadata.labels?.[BUCKET_TAGS.uid]).map((b) => ({
        store: 'gcs' as const, name: b.name, tags: { ...(b.metadata.labels as Record<string, string>) },
        location: { region: b.metadata.location, account: this.o.projectId },
      }));
    } catch (e) {
      throw gcsError(`(project ${this.o.projectId ?? 'of the default credentials'})`, 'listing buckets', e);
    }
  }

  async upload(name: string, files: Map<string, string>, onProgress?: (p: UploadProgress) => void, signal?: AbortSignal): Promise<UploadResult> {
    const b = await this.bucket(name);
    const held = new Map<string, Held>();
    try {
      const [objects] = await b.getFiles({ autoPaginate: true });
      for (const f of objects) held.set(f.name, { size: Number(f.metadata.size), md5: f.metadata.md5Hash });
    } catch (e) {
      throw gcsError(name, 'listing the bucket before the upload', e);
    }
    return uploadChanged({
      label: `gs://${name}`, files, held, limit: 8, onProgress, signal,
      send: async (f: LocalFile) => {
        try {
          // Small files in one multipart request. Larger ones resumable, the session opened by
          // createResumableUpload: @google-cloud/storage 7.22's upload stream drops the token
          // for a non-Google apiEndpoint (startResumableUpload_ does not pass on
          // useAuthWithCustomEndpoint), while the session URI needs none for its PUTs.
          const metadata = { md5Hash: f.md5.toString('base64') };
          const resumable = f.size > MULTIPART_MAX
            ? { resumable: true, uri: (await b.file(f.key).createResumableUpload({ metadata }))[0] }
            : { resumable: false };
          await b.upload(f.path, { destination: f.key, metadata, ...resumable });
        } catch (e) {
          throw gcsError(name, `uploading ${f.key}`, e);
        }
      },
    });
  }

  async delete(name: string, signal?: AbortSignal): Promise<DeleteProof> {
    const b = await this.bucket(name);
    // Page through the objects, deleting each page; the first page is asked again until empty,
    // so objects written meanwhile are caught too (the bucket delete would refuse with 409).
    for (;;) {
      signal?.throwIfAborted();
      let page;
      try {
        [page] = await b.getFiles({ autoPaginate: false, maxResults: 1000 });
      } catch (e) {
        throw gcsError(name, 'listing the bucket to empty it', e);
      }
      if (!page.length) break;
      await eachLimited(page, 16, async (f) => {
        try {
          await f.delete({ ignoreNotFound: true });
        } catch (e) {
          throw gcsError(name, `deleting ${f.name}`, e);
        }
      });
    }
    try {
      await b.delete();
    } catch (e) {
      throw gcsError(name, 'deleting the bucket', e);
    }
    return { name, proof: await this.proveGone(b) };
  }

  private async proveGone(b: Bucket): Promise<string> {
    try {
      await b.getMetadata();
    } catch (e) {
      const err = e as { code?: number; errors?: { reason?: string }[] };
      if (err.code === 404) return `buckets.get → 404 ${err.errors?.[0]?.reason ?? 'notFound'}`;
      throw gcsError(b.name, 'proving the bucket gone', e);
    }
    throw new StorageError('failed', label(b.name), 'the bucket is still there after its delete succeeded', 'Look at it in the console and delete it again.');
  }
}
