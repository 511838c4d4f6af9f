// The control-plane side of buckets: what Skydeck does to a bucket from this machine (create,
// fill, list, delete with proof), one implementation per store. Node-side access (COPY, MOUNT)
// is rclone on the node (../copy.ts, ../mount.ts); this is the cloud API from the editor/CLI.
// Credentials come from each cloud's own chain; nothing here reads a key file itself.
import type { StoreKind } from '../types';

/** Tags/labels every bucket Skydeck creates carries (GCS label rules: lowercase, [a-z0-9_-]). */
export const BUCKET_TAGS = {
  /** Marks a bucket as Skydeck's; value: the bucket row's uid. */
  uid: 'skydeck-bucket-uid',
  /** The workspace that created it (meta.workspaceId), so another workspace's are listed apart. */
  workspace: 'skydeck-workspace',
} as const;

/** Where a store keeps buckets: AWS/R2 region or account, GCP project, Azure storage account. */
export interface BucketLocation {
  /** S3: region; GCS: location (e.g. "US"); not used by Azure/R2. */
  region?: string;
  /** GCS: the project; Azure: the storage account; R2: the Cloudflare account id. */
  account?: string;
}

/** One bucket as listed by its store. */
export interface ListedBucket {
  store: StoreKind;
  name: string;
  /** The Skydeck tags/labels it carries ({} for a bucket Skydeck did not create). */
  tags: Record<string, string>;
  location: BucketLocation;
}

/** Progress of an upload: files and bytes sent so far, of the totals that changed. */
export interface UploadProgress {
  files: number;
  bytes: number;
  totalFiles: number;
  totalBytes: number;
}

export interface UploadResult {
  /** Files sent (new or changed). */
  uploaded: number;
  /** Files already in the bucket with the same size and content hash. */
  unchanged: number;
  bytes: number;
}

/** The answer of a delete: proof is the call that showed the bucket absent afterwards. */
export interface DeleteProof {
  name: string;
  /** e.g. "HeadBucket → 404 NoSuchBucket" */
  proof: string;
}

/**
 * One store's bucket API. Errors are StorageError (../errors.ts) with a kind the UI can act on
 * ('denied', 'bucket-missing', 'config', …; add kinds to the union as needed), naming the bucket and what to fix.
 */
export interface BucketStore {
  readonly store: StoreKind;
  /** true / false; throws StorageError('denied') when the answer cannot be known. */
  exists(name: string, signal?: AbortSignal): Promise<boolean>;
  /** Creates the bucket with `tags`; a bucket that already exists is an error (StorageError kind 'bucket-exists', to be added). */
  create(name: string, tags: Record<string, string>, signal?: AbortSignal): Promise<void>;
  /**
   * Stores that tag in a second call (S3, R2): tags a tagless bucket whose create was interrupted
   * after CreateBucket, if the evidence says the intent row written at `rowAt` made it (s3Adopt.ts).
   * Returns undefined when tagged, else why not. Absent where create and tags are one call.
   */
  adoptUntagged?(name: string, tags: Record<string, string>, rowAt: number, signal?: AbortSignal): Promise<string | undefined>;
  /** The bucket's tags/labels ({} if none); throws StorageError('bucket-missing') if it is gone. */
  tags(name: string, signal?: AbortSignal): Promise<Record<string, string>>;
  /** Buckets visible to the credentials that carry BUCKET_TAGS.uid. */
  listSkydeck(signal?: AbortSignal): Promise<ListedBucket[]>;
  /**
   * Uploads local files into the bucket (`files`: local path → object key), skipping objects
   * already there with the same size and MD5; never deletes objects.
   */
  upload(name: string, files: Map<string, string>, onProgress?: (p: UploadProgress) => void, signal?: AbortSignal): Promise<UploadResult>;
  /** S3: the region the bucket lives in (undefined: no such bucket); stores without regions leave it out. */
  regionOf?(name: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Deletes every object, then the bucket, then proves it absent (never "unknown" as "gone"). */
  delete(name: string, signal?: AbortSignal): Promise<DeleteProof>;
}
