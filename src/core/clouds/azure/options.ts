// Options of the Azure provider. Plain types only: importing this file never loads the SDK.

export interface AzureProviderOptions {
  /** Subscription; default AZURE_SUBSCRIPTION_ID, else the Azure CLI's default subscription (az account set). */
  subscriptionId?: string;
  /** Location used when a placement names none; default eastus. */
  region?: string;
  /** ARM endpoint (tests: the local fake); default https://management.azure.com. */
  endpoint?: string;
  /**
   * A TokenCredential (tests: a fixed token). Default: DefaultAzureCredential (env service
   * principal, workload identity, managed identity, Azure CLI, Azure Developer CLI, PowerShell).
   * Typed loosely so this file needs no SDK import.
   */
  credential?: unknown;
  /** Extra CA certificates (PEM) to trust (tests: the fake's self-signed cert). */
  ca?: string;
  /** Azure CLI directory; default AZURE_CONFIG_DIR or ~/.azure. */
  azureConfigDir?: string;
  /** Environment read for subscription / credential discovery (tests); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where Skydeck's SSH key lives (created when missing); default ~/.skydeck/keys. */
  keyDir?: string;
  /** Where fetched machine-type listings are cached; default ~/.skydeck/catalog. */
  catalogDir?: string;
  /** Connect to private IPs instead of public ones (VPN / peered VNet). */
  usePrivateIps?: boolean;
  /** Long-running-operation polling interval (ms; the SDK's default is 2 s) and wait bound. */
  pollMs?: number;
  /** SDK retries of a throttled / 5xx call; default 2 (the provision loop has its own backoff). */
  sdkRetries?: number;
  /**
   * On a managed-jobs controller VM: the resource id of its jobs identity, which the job clusters
   * it launches carry for their Blob mounts (bucketIdentity.ts); default the environment's
   * SKYDECK_AZURE_JOBS_IDENTITY (what AzureProvider.controllerNodeEnv sets there).
   */
  jobsIdentity?: string;
  /** Diagnostics (never secrets). */
  log?(message: string): void;
}

/** Set on a controller VM's CLI (AzureProvider.controllerNodeEnv): AzureProviderOptions.jobsIdentity. */
export const JOBS_IDENTITY_ENV = 'SKYDECK_AZURE_JOBS_IDENTITY';

/** Login user created by the image's provisioning agent from osProfile. */
export const AZURE_SSH_USER = 'skydeck';

/** Canonical's Ubuntu 22.04 LTS, generation 2 (needed by most current sizes, GPU ones included). */
export const UBUNTU_2204 = { publisher: 'Canonical', offer: '0001-com-ubuntu-server-jammy', sku: '22_04-lts-gen2', version: 'latest' };
/** The same release built for Arm64 sizes (an x64 image does not boot on them). */
export const UBUNTU_2204_ARM64 = { ...UBUNTU_2204, sku: '22_04-lts-arm64' };

export const DEFAULT_LOCATION = 'eastus';
