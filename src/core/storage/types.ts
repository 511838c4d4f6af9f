// The bucket mounts a task asks for, as the task parser hands them on. Plain data only: the
// parser (src/core/task/) produces these and the storage code (rclone on the node) consumes
// them, so this file is the only thing the two share. Keep it small and change it additively.

/** Object stores Skydeck understands in `file_mounts`. */
export type StoreKind = 's3' | 'gcs' | 'azure' | 'r2';

/**
 * How a bucket appears on the node (SkyPilot's names):
 * MOUNT - a FUSE mount, reads streamed and writes go straight to the bucket;
 * COPY - the objects are downloaded before setup and the job sees plain files;
 * MOUNT_CACHED - mounted with a local write cache that is uploaded before the job counts as done.
 */
export type MountMode = 'MOUNT' | 'COPY' | 'MOUNT_CACHED';

/**
 * Mount tuning: SkyPilot's `type:` preset merged with `config: {mount_cached: …}` or
 * `config: {mount: …}`, in SkyPilot's key names (sky/data/storage.py MountCachedConfig,
 * MountConfig). Each becomes an rclone 1.60 flag in rcloneArgs.ts.
 */
export interface MountTuning {
  transfers?: number;
  buffer_size?: string;
  vfs_cache_max_size?: string;
  vfs_cache_max_age?: string;
  vfs_read_ahead?: string;
  vfs_read_chunk_size?: string;
  vfs_write_back?: string;
  read_only?: boolean;
}

interface UrlMountBase {
  kind: 'url';
  /** The URL as written in the task, for messages. */
  url: string;
  /** Bucket name; for Azure the container (the same value as `container`). */
  bucket: string;
  /** Path inside the bucket without leading or trailing '/'; '' for the whole bucket. */
  prefix: string;
  mode: MountMode;
  tuning?: MountTuning;
}

/** An existing bucket named by URL (`s3://b/p`, `gs://b/p`, `r2://b/p`, `https://<account>.blob.core.windows.net/<container>/p`). Never created or deleted by Skydeck. */
export type UrlBucketMount =
  | (UrlMountBase & { store: 's3' | 'gcs' | 'r2' })
  | (UrlMountBase & { store: 'azure'; account: string; container: string });

/** A bucket Skydeck manages by name: created if missing, optionally filled from a local directory. */
export interface NamedBucketMount {
  kind: 'named';
  store: StoreKind;
  name: string;
  mode: MountMode;
  tuning?: MountTuning;
  /** false: delete the bucket when the cluster that created it is torn down. SkyPilot's default is true. */
  persistent: boolean;
  /** Local directory to upload into the bucket, as written (may be relative or `~/…`; resolved and checked at launch). */
  localSource?: string;
  /** The list form `source: [a, b]`: local files or directories, each uploaded to the bucket root under its base name. */
  localFiles?: string[];
}

export type BucketMount = UrlBucketMount | NamedBucketMount;
