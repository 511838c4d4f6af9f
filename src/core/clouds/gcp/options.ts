// Options of the GCP provider. Plain types only: importing this file never loads the auth library.

export interface GcpProviderOptions {
  /** Project to use; default: GOOGLE_CLOUD_PROJECT / CLOUDSDK_CORE_PROJECT, gcloud's active config, then ADC. */
  project?: string;
  /** Region used when a placement names none; default us-central1 (GCP has no per-user default region chain). */
  region?: string;
  /** Compute API host and port (tests: the local fake); default compute.googleapis.com:443. */
  apiEndpoint?: string;
  port?: number;
  protocol?: 'http' | 'https';
  /**
   * An auth client of google-auth-library (tests: an OAuth2Client with a fixed token, or a
   * PassThroughClient). Default: the library's Application Default Credentials chain. Typed
   * loosely so this file imports no library.
   */
  authClient?: unknown;
  /** gcloud's configuration directory; default CLOUDSDK_CONFIG or ~/.config/gcloud (%APPDATA%\gcloud on Windows). */
  gcloudConfigDir?: string;
  /** Environment read for project / credential discovery (tests); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where Skydeck's SSH key lives (created when missing); default ~/.skydeck/keys. */
  keyDir?: string;
  /** Where fetched machine-type listings are cached; default ~/.skydeck/catalog. */
  catalogDir?: string;
  /** Zones to try per region, overriding the built-in table. */
  zones?: Record<string, string[]>;
  /** VPC network the instances and the firewall rule use; default "default". */
  network?: string;
  /** Connect to private IPs instead of public ones (VPN / same VPC). */
  usePrivateIps?: boolean;
  /**
   * Times a read (GET) that failed with 503 or 504 is tried again by the REST client (rest.ts);
   * default 2, as the provision loop has its own backoff.
   */
  sdkRetries?: number;
  /** Operation polling: interval between waits and the give-up bound (ms). */
  pollMs?: number;
  operationTimeoutMs?: number;
  /**
   * On a managed-jobs controller VM: the e-mail of the controller's jobs account, which job
   * clusters with GCS mounts run as (jobsAccount.ts). Default: $SKYDECK_GCP_JOBS_ACCOUNT of `env`.
   */
  jobsAccount?: string;
  /**
   * This process runs on a managed-jobs controller VM: every instance it creates is named with
   * the job-cluster prefix its identity is bound to (controllerRole.ts). Default: the
   * environment's SKYDECK_GCP_JOB_CLUSTERS is "1". GcpProvider.controllerNodeEnv sets both there.
   */
  jobClusters?: boolean;
  /**
   * On a managed-jobs controller VM: the name of the one firewall rule this machine made for its
   * job clusters at the controller's launch (jobsFirewall.ts; it targets the jobs account, which
   * every job cluster runs as), checked before each job launch; the VM makes and deletes no rule.
   * Default: $SKYDECK_GCP_JOBS_RULE of `env`.
   */
  jobsRule?: string;
  /** Diagnostics (never secrets). */
  log?(message: string): void;
}

/** Set on a controller VM's CLI (GcpProvider.controllerNodeEnv): GcpProviderOptions.jobClusters. */
export const JOB_CLUSTERS_ENV = 'SKYDECK_GCP_JOB_CLUSTERS';

/**
 * Set on a controller VM's CLI (GcpProvider.controllerNodeEnv): GcpProviderOptions.jobsRule. (An
 * older Skydeck set SKYDECK_GCP_JOBS_NET_TAG, a tag its job clusters carried; such a VM is told
 * no rule and refuses job launches until its relaunch.)
 */
export const JOBS_RULE_ENV = 'SKYDECK_GCP_JOBS_RULE';

/** Login user written into the ssh-keys metadata; the guest agent creates it on the VM. */
export const GCP_SSH_USER = 'skydeck';

/** Ubuntu 22.04 LTS, by image family so the newest build of the family is used. */
export const DEFAULT_IMAGE = 'projects/ubuntu-os-cloud/global/images/family/ubuntu-2204-lts';
/** The same release for Arm machine types (t2a, c4a): the x86 family does not boot on them. */
export const DEFAULT_ARM_IMAGE = 'projects/ubuntu-os-cloud/global/images/family/ubuntu-2204-lts-arm64';
