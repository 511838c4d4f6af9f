// Which BucketStore serves which store. The factories are a map so each store's SDK loads only
// when used, and a store not wired yet says so instead of breaking the build.
import type { StoreKind } from '../types';
import { StorageError } from '../errors';
import { loadStoreModule } from './load';
import { readR2Config } from '../r2Config';
import type { BucketLocation, BucketStore } from './types';

export * from './types';

export interface BucketStoreOptions {
  /** Endpoint override (tests: moto, Azurite, the GCS fake). */
  endpoint?: string;
}

export type BucketStoreFactory = (location: BucketLocation, opts: BucketStoreOptions) => BucketStore;

/**
 * The built-in factories, each store's SDK loaded on first use (load.ts): S3 and R2 through @aws-sdk/client-s3
 * (R2 with the user's R2 keys and account id from ~/.cloudflare, as SkyPilot keeps them),
 * GCS through @google-cloud/storage (in the location's project, else the default credentials'),
 * Azure Blob through @azure/storage-blob in the location's storage account.
 */
export const DEFAULT_FACTORIES: Record<StoreKind, BucketStoreFactory> = {
  s3: (location, opts) => {
    const { S3BucketStore } = loadStoreModule('s3');
    return new S3BucketStore({ store: 's3', region: location.region, endpoint: opts.endpoint });
  },
  r2: (location, opts) => {
    const { S3BucketStore } = loadStoreModule('s3');
    const r2 = readR2Config('r2');
    return new S3BucketStore({ store: 'r2', account: location.account ?? r2.accountId, endpoint: opts.endpoint,
      credentials: { accessKeyId: r2.accessKeyId, secretAccessKey: r2.secretAccessKey, ...(r2.sessionToken ? { sessionToken: r2.sessionToken } : {}) } });
  },
  gcs: (location, opts) => {
    const { GcsBucketStore } = loadStoreModule('gcs');
    return new GcsBucketStore({ projectId: location.account, location: location.region, apiEndpoint: opts.endpoint });
  },
  azure: (location, opts) => {
    if (!location.account) {
      throw new StorageError('config', 'azure', 'no Azure storage account is known for a bucket Skydeck creates',
        'Set AZURE_STORAGE_ACCOUNT to the storage account that should hold Skydeck\'s containers.');
    }
    const { AzureBucketStore } = loadStoreModule('azure');
    return new AzureBucketStore({ account: location.account, endpoint: opts.endpoint });
  },
};

/** The BucketStore for `store` at `location`, from `factories` (default: the built-in ones). */
export function bucketStoreFor(
  store: StoreKind, location: BucketLocation, opts: BucketStoreOptions = {}, factories: Record<StoreKind, BucketStoreFactory> = DEFAULT_FACTORIES,
): BucketStore {
  return factories[store](location, opts);
}
