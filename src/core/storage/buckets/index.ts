// Which BucketStore serves which store. The factories are a map so each store's SDK loads only
// when used, and a store not wired yet says so instead of breaking the build.
import type { StoreKind } from '../types';
import { StorageError } from '../errors';
import type { BucketLocation, BucketStore } from './types';

export * from './types';

export interface BucketStoreOptions {
  /** Endpoint override (tests: moto, Azurite, the GCS fake). */
  endpoint?: string;
}

export type BucketStoreFactory = (location: BucketLocation, opts: BucketStoreOptions) => BucketStore;

const notYet = (store: StoreKind): BucketStoreFactory => () => {
  throw new StorageError('config', store, `creating and deleting ${store} buckets is not available in this build yet`,
    'Use an existing bucket by URL, or a bucket on S3 or R2.');
};

/** The built-in factories: S3 and R2 through @aws-sdk/client-s3, loaded on first use. */
export const DEFAULT_FACTORIES: Record<StoreKind, BucketStoreFactory> = {
  s3: (location, opts) => {
    const { S3BucketStore } = require('./s3') as typeof import('./s3');
    return new S3BucketStore({ store: 's3', region: location.region, endpoint: opts.endpoint });
  },
  r2: (location, opts) => {
    const { S3BucketStore } = require('./s3') as typeof import('./s3');
    return new S3BucketStore({ store: 'r2', account: location.account, endpoint: opts.endpoint });
  },
  gcs: notYet('gcs'),
  azure: notYet('azure'),
};

/** The BucketStore for `store` at `location`, from `factories` (default: the built-in ones). */
export function bucketStoreFor(
  store: StoreKind, location: BucketLocation, opts: BucketStoreOptions = {}, factories: Record<StoreKind, BucketStoreFactory> = DEFAULT_FACTORIES,
): BucketStore {
  return factories[store](location, opts);
}
