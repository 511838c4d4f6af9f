// The user's own store credentials for a node that has no identity of its own, only after the
// explicit opt-in. Each comes from the store's usual place on this machine (the AWS SDK's default
// chain; GOOGLE_APPLICATION_CREDENTIALS; AZURE_STORAGE_KEY; R2 as SkyPilot keeps it, in
// ~/.cloudflare, storage/r2Config.ts) and goes to rclone on the node as
// environment over stdin (storage/runOnNode.ts), never into a file or a command line.
import * as fs from 'node:fs';
import { loadAws } from '../clouds/aws/load';
import { StorageError, type StoreCredentials, type StoreKind } from '../storage';
import { readR2Config } from '../storage/r2Config';
import { OpsError } from './errors';

export interface Shared {
  credentials: StoreCredentials;
  /** For the launch output: whose credentials went to the node. */
  what: string;
  /** R2: the Cloudflare account id the endpoint is made from. */
  r2AccountId?: string;
}

export interface ShareOptions {
  /** Where R2's files are; default ~/.cloudflare. */
  cloudflareDir?: string;
}

export async function sharedCredentials(store: StoreKind, label: string, where: string, opts: ShareOptions = {}): Promise<Shared> {
  if (store === 's3') {
    const keys = await loadAws().resolveAwsKeys().catch((e: Error) => {
      throw new OpsError('failed', `file_mounts ${label}: could not find your AWS credentials to share (${e.message}); configure them as for the aws CLI (aws configure, or AWS_PROFILE)`);
    });
    return { credentials: { kind: 'keys', ...keys }, what: 'AWS' };
  }
  if (store === 'gcs') return { credentials: { kind: 'gcsServiceAccount', json: gcsServiceAccountJson(label) }, what: 'GCP service-account' };
  if (store === 'azure') {
    const key = process.env.AZURE_STORAGE_KEY;
    if (!key) {
      throw new OpsError('failed', `file_mounts ${label}: to share Azure Blob access with ${where}, set AZURE_STORAGE_KEY to the storage account's access key (az storage account keys list)`);
    }
    return { credentials: { kind: 'azureKey', key }, what: 'Azure storage-account' };
  }
  try {
    const r2 = readR2Config(label, opts.cloudflareDir);
    const keys = { accessKeyId: r2.accessKeyId, secretAccessKey: r2.secretAccessKey, ...(r2.sessionToken ? { sessionToken: r2.sessionToken } : {}) };
    return { credentials: { kind: 'keys', ...keys }, what: 'R2', r2AccountId: r2.accountId };
  } catch (e) {
    if (e instanceof StorageError) throw new OpsError('failed', `file_mounts ${e.message}`);
    throw e;
  }
}

/**
 * The key file GOOGLE_APPLICATION_CREDENTIALS names, if it is a service-account key: rclone on
 * the node can sign in with that alone. gcloud's user login (a refresh token) is refused, as
 * handing a person's login to a machine is not what the opt-in is for.
 */
function gcsServiceAccountJson(label: string): string {
  const file = process.env.GOOGLE_APPLICATION_CREDENTIALS;
  const fix = 'set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file (gcloud iam service-accounts keys create)';
  if (!file) throw new OpsError('failed', `file_mounts ${label}: no GCP service-account key to share: ${fix}`);
  let parsed: unknown;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
    parsed = JSON.parse(text);
  } catch (e) {
    throw new OpsError('failed', `file_mounts ${label}: GOOGLE_APPLICATION_CREDENTIALS (${file}) could not be read as JSON (${(e as Error).message.split('\n')[0]}): ${fix}`);
  }
  const o = parsed as Record<string, unknown>;
  if (!o || o.type !== 'service_account' || typeof o.client_email !== 'string' || typeof o.private_key !== 'string') {
    throw new OpsError('failed', `file_mounts ${label}: GOOGLE_APPLICATION_CREDENTIALS (${file}) is not a service-account key (type ${JSON.stringify(o?.type ?? null)}): ${fix}`);
  }
  return text;
}
