// Set-up for the bucket control-plane tests: moto's S3 on 127.0.0.1, reached through the AWS
// SDK's own default chain — the dummy keys go into this process's environment (tests only) and
// are taken back out at teardown; the endpoint is the only override.
import { DUMMY_CREDENTIALS, skipWithoutMoto, startMoto, type MotoServer } from '../../support/moto';
import { S3BucketStore } from '../../../src/core/storage/buckets/s3';
import type { BucketStoreFactory } from '../../../src/core/storage/buckets';
import type { StoreKind } from '../../../src/core/storage/types';
import { S3Http } from './s3Http';
import { StorageError } from '../../../src/core/storage/errors';

const VARS: Record<string, string> = {
  AWS_ACCESS_KEY_ID: DUMMY_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: DUMMY_CREDENTIALS.secretAccessKey,
  AWS_REGION: 'us-east-1',
  AWS_EC2_METADATA_DISABLED: 'true',
  // No profile of the developer's may win over the keys above.
  AWS_CONFIG_FILE: '/nonexistent/skydeck-test-aws-config',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/skydeck-test-aws-credentials',
};

export interface BucketsEnv {
  moto: MotoServer;
  http: S3Http;
  s3(): S3BucketStore;
  r2(): S3BucketStore;
  /** Factories for ops: S3 and R2 on moto; GCS/Azure unavailable. */
  factories: Record<StoreKind, BucketStoreFactory>;
  teardown(): Promise<void>;
}

/** A store no bucket test may reach (never a real account): refused as not set up, so a sweep skips it. */
export const offlineStore = (): never => {
  throw new StorageError('config', 'test', 'this store is not set up in the bucket tests', 'Only S3 and R2 on moto are.');
};

/** ops.bucketStores for a test: `s3` (and R2) given, every other store offline. */
export function onlyS3(s3: BucketStoreFactory): Record<StoreKind, BucketStoreFactory> {
  return { s3, r2: offlineStore, gcs: offlineStore, azure: offlineStore };
}

export function skipWithoutS3(ctx: Mocha.Context): void {
  skipWithoutMoto(ctx);
}

export async function startBucketsEnv(): Promise<BucketsEnv> {
  const saved = Object.fromEntries(Object.keys(VARS).concat('AWS_PROFILE', 'CLOUDFLARE_ACCOUNT_ID').map((k) => [k, process.env[k]]));
  Object.assign(process.env, VARS);
  // Nothing here may reach a real account: R2 is reached only through moto's endpoint.
  delete process.env.AWS_PROFILE;
  delete process.env.CLOUDFLARE_ACCOUNT_ID;
  const moto = await startMoto();
  const s3 = () => new S3BucketStore({ store: 's3', endpoint: moto.url });
  const r2 = () => new S3BucketStore({ store: 'r2', endpoint: moto.url, account: 'a'.repeat(32) });
  const unavailable = offlineStore;
  return {
    moto, http: new S3Http(moto.url), s3, r2,
    factories: { s3: () => s3(), r2: () => r2(), gcs: unavailable, azure: unavailable },
    async teardown() {
      await moto.stop();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  };
}
