// An rclone remote for one bucket, configured only through environment variables
// (RCLONE_CONFIG_<NAME>_<OPTION>, rclone's documented form), so no credential is ever written
// to a file on the node. Option names are those of rclone 1.60.1 (`rclone help backend s3`,
// `... gcs`, `... azureblob`): in 1.60 gcs and azureblob have no `env_auth`; gcs falls back
// to Google's application-default credentials (the VM's service account) when given no token,
// and azureblob reaches the VM's managed identity through `use_msi` (`msi_mi_res_id` names
// which one when a VM holds several).
import { StorageError } from './errors';
import { r2Endpoint } from './r2Config';
import type { BucketTarget } from './target';

/** The one remote name every Skydeck rclone process uses (each process has its own env). */
export const REMOTE = 'skydeck';
const PREFIX = `RCLONE_CONFIG_${REMOTE.toUpperCase()}_`;

/** How the node authenticates to the store. */
export type StoreCredentials =
  /** The VM's own identity: AWS instance profile, GCP service account, Azure managed identity. */
  | { kind: 'vm'; azureMsiResourceId?: string }
  /** S3 or R2 keys: only with the user's explicit opt-in (ssh pools, local). */
  | { kind: 'keys'; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  /** A GCP service-account key (JSON text), opt-in like keys. */
  | { kind: 'gcsServiceAccount'; json: string }
  /** An Azure storage account key, opt-in like keys. */
  | { kind: 'azureKey'; key: string }
  /**
   * A container SAS URL (https://<account>.blob.core.windows.net/<container>?sv=…&sig=…), opt-in
   * like keys but scoped to one container and expiring; the URL is used as given (endpoint included).
   */
  | { kind: 'azureSas'; containerUrl: string };

export interface StoreAccess {
  credentials: StoreCredentials;
  /** S3 region of the bucket (AWS does not redirect path-style requests). */
  region?: string;
  /** R2: the Cloudflare account id (the endpoint is https://<id>.r2.cloudflarestorage.com). */
  r2AccountId?: string;
  /** Overrides the store's endpoint: emulators in tests, private endpoints. */
  endpoint?: string;
  /**
   * Tests only: Azure Blob through Azurite with rclone's `use_emulator`, the emulator's published
   * account and key. Then, and only then, 1.60 takes `endpoint` as the whole service URL
   * (Azurite's path-style http://127.0.0.1:<port>/devstoreaccount1, tried against it); without
   * one it joins the default domain suffix into a URL with no scheme, so one is required here.
   */
  azureEmulator?: boolean;
}

export interface RcloneRemote {
  /** Environment for the rclone process: the remote's configuration. */
  env: Record<string, string>;
  /** Names in `env` whose values are secret (never logged, never on a command line). */
  secret: string[];
  /** e.g. "skydeck:bkt/prefix". */
  remotePath: string;
}

export function rcloneRemote(label: string, t: BucketTarget, access: StoreAccess): RcloneRemote {
  const opts: Record<string, string> = {};
  const sdkEnv: Record<string, string> = {};
  const secret: string[] = [];
  const put = (k: string, v: string | undefined, isSecret = false): void => {
    if (v === undefined || v === '') return;
    if (/[\n\r\0]/.test(v)) throw new StorageError('config', label, `the ${k} setting contains a line break`, 'Remove the line break from the value.');
    opts[k] = v;
    if (isSecret) secret.push(PREFIX + k.toUpperCase());
  };
  const c = access.credentials;
  const wrongCreds = (): never => {
    throw new StorageError('config', label, `${c.kind} credentials do not apply to a ${t.store} bucket`,
      'Give credentials of the bucket\'s own store, or use the VM\'s identity.');
  };
  if (t.store === 's3' || t.store === 'r2') {
    put('type', 's3');
    // rclone 1.60 forces virtual-host addressing (bucket.host) for provider AWS whatever
    // force_path_style says (s3.go setQuirks); an endpoint given as an address (emulator,
    // S3-compatible server) needs path style, which provider Other uses. Cloudflare is path style.
    put('provider', t.store === 'r2' ? 'Cloudflare' : access.endpoint ? 'Other' : 'AWS');
    // The bucket was checked before; writes must not need CreateBucket permission.
    put('no_check_bucket', 'true');
    if (t.store === 'r2') {
      if (c.kind !== 'keys') {
        throw new StorageError('config', label, 'R2 buckets have no VM identity to read them with',
          'Give R2 access keys (the explicit credentials opt-in), as for ssh pools.');
      }
      const endpoint = access.endpoint ?? (access.r2AccountId ? r2Endpoint(access.r2AccountId) : undefined);
      if (!endpoint) throw new StorageError('config', label, 'no R2 account id is known', 'Write it into ~/.cloudflare/accountid, as for SkyPilot.');
      put('endpoint', endpoint);
      put('region', 'auto');
    } else {
      put('endpoint', access.endpoint);
      put('region', access.region);
    }
    // Keys go in the AWS SDK's own variables, read through env_auth, not in the remote's options:
    // rclone names a MOUNT_CACHED write cache by a hash of those options, so keys in them (which
    // rotate: session tokens) would strand a crashed mount's unsent writes in an old cache dir.
    put('env_auth', 'true');
    if (c.kind === 'keys') {
      for (const [k, v] of [['AWS_ACCESS_KEY_ID', c.accessKeyId], ['AWS_SECRET_ACCESS_KEY', c.secretAccessKey], ['AWS_SESSION_TOKEN', c.sessionToken]] as const) {
        // No token of ours: an empty one, so a token in the node's own login environment is
        // not paired with our keys (the SDK would send it, and be refused).
        if (v === undefined || v === '') {
          if (k === 'AWS_SESSION_TOKEN') sdkEnv[k] = '';
          continue;
        }
        if (/[\n\r\0]/.test(v)) throw new StorageError('config', label, `the ${k} setting contains a line break`, 'Remove the line break from the value.');
        sdkEnv[k] = v;
        secret.push(k);
      }
    } else if (c.kind !== 'vm') wrongCreds();
  } else if (t.store === 'gcs') {
    put('type', 'google cloud storage');
    put('no_check_bucket', 'true');
    put('endpoint', access.endpoint);
    // vm: nothing to set; rclone 1.60 uses application-default credentials without a token (seen:
    // 1.60.1 given none asks the token_uri of GOOGLE_APPLICATION_CREDENTIALS' key; on a VM ADC ends at
    // the metadata server, i.e. the node's service account).
    if (c.kind === 'gcsServiceAccount') put('service_account_credentials', c.json, true);
    else if (c.kind !== 'vm') wrongCreds();
  } else if (access.azureEmulator) {
    if (!access.endpoint) throw new StorageError('config', label, 'the Azure emulator needs its URL as the endpoint', 'Give the emulator\'s blob URL, e.g. http://127.0.0.1:10000/devstoreaccount1.');
    put('type', 'azureblob');
    put('use_emulator', 'true');
    put('endpoint', access.endpoint);
  } else if (c.kind === 'azureSas') {
    // rclone takes scheme, host and account from the SAS URL itself (any endpoint, Azurite too).
    put('type', 'azureblob');
    put('sas_url', c.containerUrl, true);
  } else {
    if (!t.account) throw new StorageError('config', label, 'no Azure storage account is known', 'Name the account in the URL (https://<account>.blob.core.windows.net/<container>).');
    // 1.60's azureblob `endpoint` is a domain suffix (it dials https://<account>.<endpoint>); a
    // URL there would become a host such as "acct.http", so it is refused here with the fix.
    if (access.endpoint && /^[a-z]+:\/\/|\//i.test(access.endpoint)) {
      throw new StorageError('config', label, `the Azure endpoint ${access.endpoint} is a URL, but rclone 1.60 takes a domain suffix there`,
        'Give the suffix (e.g. blob.core.usgovcloudapi.net), or a container SAS URL for an endpoint of another form.');
    }
    put('type', 'azureblob');
    put('account', t.account);
    put('endpoint', access.endpoint);
    if (c.kind === 'vm') {
      put('use_msi', 'true');
      // The cluster's user-assigned identity by its ARM id (deterministic, unlike its client id):
      // a head with autostop also holds a system-assigned one, which rclone would take by default.
      put('msi_mi_res_id', c.azureMsiResourceId);
    } else if (c.kind === 'azureKey') put('key', c.key, true);
    else wrongCreds();
  }
  const env: Record<string, string> = { ...sdkEnv };
  for (const [k, v] of Object.entries(opts)) env[PREFIX + k.toUpperCase()] = v;
  const path = t.prefix ? `${t.bucket}/${t.prefix}` : t.bucket;
  return { env, secret, remotePath: `${REMOTE}:${path}` };
}

/** Replaces every secret value of `env` in `text` (for log lines and error messages). */
export function redact(text: string, env: Record<string, string>, secret: string[]): string {
  let out = text;
  for (const name of secret) {
    const v = env[name];
    if (v) out = out.split(v).join('[redacted]');
  }
  return out;
}
