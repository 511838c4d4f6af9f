// The BucketStore of S3 and of R2 (Cloudflare's S3 API: endpoint https://<account>.r2.cloudflarestorage.com,
// region "auto"). S3 credentials come from the SDK's default chain (env, profile, SSO, IMDS); R2's
// are given (the user's ~/.cloudflare files, storage/r2Config.ts), never the AWS chain.
import { BUCKET_MARKER } from '../marker';
import {
  CreateBucketCommand, DeleteBucketCommand, GetBucketTaggingCommand, GetObjectCommand,
  HeadBucketCommand, ListBucketsCommand, PutBucketTaggingCommand, PutObjectCommand, S3Client,
  type BucketLocationConstraint,
} from '@aws-sdk/client-s3';
import { StorageError } from '../errors';
import { BUCKET_TAGS, type BucketLocation, type BucketStore, type DeleteProof, type ListedBucket, type UploadProgress, type UploadResult } from './types';
import { s3Code, s3Error, s3Status } from './s3Errors';
import { emptyBucket, uploadChanged } from './s3Objects';
import type { MultipartOptions } from './s3Multipart';
import { creationTime, notFromIntent } from './s3Adopt';
import { bucketRegion, locationRegion } from './s3Region';

export interface S3StoreOptions {
  store: 's3' | 'r2';
  /** S3: where new buckets go; default the SDK's region (AWS_REGION, profile), else us-east-1. */
  region?: string;
  /** R2: the Cloudflare account id (required unless `endpoint` is given). */
  account?: string;
  /** Endpoint override (tests: moto); R2 default: https://<account>.r2.cloudflarestorage.com. */
  endpoint?: string;
  /** Keys to use instead of the SDK's default chain (R2). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Uploads in flight at once; default 8. */
  concurrency?: number;
  /** When files go in parts, and the part size (s3Multipart.ts; tests lower them). */
  multipart?: Partial<MultipartOptions>;
}

/**
 * R2 has no bucket tagging (Cloudflare's "S3 API compatibility" lists Put/GetBucketTagging as
 * not implemented), so on R2 the tags live in this object at the bucket's root instead.
 */
export const R2_TAG_OBJECT = BUCKET_MARKER;

const QUIET = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export class S3BucketStore implements BucketStore {
  readonly store: 's3' | 'r2';
  private readonly client: S3Client;

  constructor(private readonly opts: S3StoreOptions) {
    this.store = opts.store;
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    let endpoint = opts.endpoint;
    if (opts.store === 'r2' && !endpoint) {
      if (!opts.account || !/^[0-9a-f]{32}$/.test(opts.account)) {
        throw new StorageError('config', 'r2', `the Cloudflare account id ${JSON.stringify(opts.account ?? '')} is not 32 hex digits`,
          'Write the R2 account id (Cloudflare dashboard, R2 overview) into ~/.cloudflare/accountid, as for SkyPilot, or set CLOUDFLARE_ACCOUNT_ID.');
      }
      endpoint = `https://${opts.account}.r2.cloudflarestorage.com`;
    }
    this.client = new S3Client({
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      // R2: only the checksums the call needs (its support of the SDK's default CRC32 trailers has varied); PutObject carries Content-MD5.
      ...(opts.store === 'r2' ? { region: 'auto', requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } as const
        : opts.region ? { region: opts.region } : {}),
      // A bucket in another region answers 301: follow it rather than fail.
      followRegionRedirects: true,
      maxAttempts: 3,
      // Every failure reaches us as an error and becomes a StorageError; the SDK's own console lines would only repeat it.
      logger: QUIET,
      requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
    });
  }

  private label(name: string): string {
    return `${this.store}://${name}`;
  }

  async exists(name: string, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: name }), { abortSignal: signal });
      return true;
    } catch (e) {
      if (s3Status(e) === 404 || s3Code(e) === 'NoSuchBucket' || s3Code(e) === 'NotFound') return false;
      // 403: it exists, but not for us; "unknown" is never folded into "absent".
      throw s3Error(this.label(name), 'HeadBucket', e);
    }
  }

  /** The bucket's region as S3 says it; undefined when it does not exist (s3Region.ts). */
  regionOf(name: string, signal?: AbortSignal): Promise<string | undefined> {
    return this.store === 'r2' ? Promise.resolve('auto') : bucketRegion(this.client, this.label(name), name, signal);
  }

  async create(name: string, tags: Record<string, string>, signal?: AbortSignal): Promise<void> {
    // us-east-1 answers 200 to CreateBucket on a bucket we already own: ask first, so an
    // existing bucket is never tagged (and later deleted) as if Skydeck had made it.
    if (await this.exists(name, signal)) throw s3Error(this.label(name), 'CreateBucket', { name: 'BucketAlreadyExists' });
    const region = this.store === 's3' ? await this.region() : undefined;
    try {
      await this.client.send(new CreateBucketCommand({
        Bucket: name,
        ...(region && region !== 'us-east-1' ? { CreateBucketConfiguration: { LocationConstraint: region as BucketLocationConstraint } } : {}),
      }), { abortSignal: signal });
    } catch (e) {
      throw s3Error(this.label(name), 'CreateBucket', e);
    }
    await this.putTags(name, tags, signal);
  }

  async adoptUntagged(name: string, tags: Record<string, string>, rowAt: number, signal?: AbortSignal): Promise<string | undefined> {
    const why = notFromIntent(await this.tags(name, signal), await creationTime(this.client, this.label(name), name, signal), rowAt);
    if (!why) await this.putTags(name, tags, signal);
    return why;
  }

  private async putTags(name: string, tags: Record<string, string>, signal?: AbortSignal): Promise<void> {
    try {
      if (this.store === 'r2') {
        await this.client.send(new PutObjectCommand({ Bucket: name, Key: R2_TAG_OBJECT, Body: JSON.stringify(tags), ContentType: 'application/json' }), { abortSignal: signal });
      } else {
        await this.client.send(new PutBucketTaggingCommand({ Bucket: name, Tagging: { TagSet: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) } }), { abortSignal: signal });
      }
    } catch (e) {
      throw s3Error(this.label(name), this.store === 'r2' ? 'PutObject (tags)' : 'PutBucketTagging', e);
    }
  }

  async tags(name: string, signal?: AbortSignal): Promise<Record<string, string>> {
    try {
      if (this.store === 'r2') return await this.r2Tags(name, signal);
      const r = await this.client.send(new GetBucketTaggingCommand({ Bucket: name }), { abortSignal: signal });
      return Object.fromEntries((r.TagSet ?? []).map((t) => [t.Key ?? '', t.Value ?? '']));
    } catch (e) {
      if (s3Code(e) === 'NoSuchTagSet' || s3Code(e) === 'NoSuchTagSetError') return {};
      throw s3Error(this.label(name), 'GetBucketTagging', e);
    }
  }

  private async r2Tags(name: string, signal?: AbortSignal): Promise<Record<string, string>> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: name, Key: R2_TAG_OBJECT }), { abortSignal: signal });
      const text = await r.Body!.transformToString();
      const parsed: unknown = JSON.parse(text.slice(0, 64 * 1024));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
      return Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
    } catch (e) {
      if (s3Code(e) === 'NoSuchKey') return {};
      if (e instanceof SyntaxError) return {}; // not ours: Skydeck writes JSON
      throw e;
    }
  }

  async listSkydeck(signal?: AbortSignal): Promise<ListedBucket[]> {
    const out: ListedBucket[] = [];
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(new ListBucketsCommand({ ...(token ? { ContinuationToken: token } : {}) }), { abortSignal: signal });
      } catch (e) {
        throw s3Error(this.store, 'ListBuckets', e);
      }
      for (const b of page.Buckets ?? []) {
        if (!b.Name) continue;
        let tags: Record<string, string>;
        try {
          tags = await this.tags(b.Name, signal);
        } catch (e) {
          if (e instanceof StorageError && e.kind === 'bucket-missing') continue; // deleted meanwhile
          throw e;
        }
        if (!tags[BUCKET_TAGS.uid]) continue;
        out.push({ store: this.store, name: b.Name, tags, location: await this.locationOf(b.Name, signal) });
      }
      token = page.ContinuationToken;
    } while (token);
    return out;
  }

  private async locationOf(name: string, signal?: AbortSignal): Promise<BucketLocation> {
    if (this.store === 'r2') return { account: this.opts.account, region: 'auto' };
    const region = await locationRegion(this.client, name, signal);
    return region ? { region } : {};
  }

  upload(name: string, files: Map<string, string>, onProgress?: (p: UploadProgress) => void, signal?: AbortSignal): Promise<UploadResult> {
    return uploadChanged(this.client, this.label(name), name, files, { concurrency: this.opts.concurrency ?? 8, onProgress, signal, multipart: this.opts.multipart });
  }

  async delete(name: string, signal?: AbortSignal): Promise<DeleteProof> {
    await emptyBucket(this.client, this.label(name), name, this.store === 's3', signal);
    try {
      await this.client.send(new DeleteBucketCommand({ Bucket: name }), { abortSignal: signal });
    } catch (e) {
      if (s3Code(e) !== 'NoSuchBucket') throw s3Error(this.label(name), 'DeleteBucket', e);
    }
    // Proof: the store itself says the bucket is absent (a few looks: deletes settle quickly).
    for (let i = 0; ; i++) {
      if (!(await this.exists(name, signal))) return { name, proof: 'HeadBucket → 404 Not Found' };
      if (i >= 10) {
        throw new StorageError('failed', this.label(name), 'the bucket is still there after DeleteBucket succeeded', 'Run the delete again; check that nothing writes to the bucket meanwhile.');
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  private async region(): Promise<string> {
    if (this.opts.region) return this.opts.region;
    try {
      return (await this.client.config.region()) || 'us-east-1';
    } catch {
      return 'us-east-1';
    }
  }

  destroy(): void {
    this.client.destroy();
  }
}
