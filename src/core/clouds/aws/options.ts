// Options of the AWS provider. Plain types only: importing this file never loads the SDK.

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface AwsProviderOptions {
  /** Region used when a placement or cluster names none; default: the SDK chain (AWS_REGION, profile). */
  region?: string;
  /** Regions the leak sweep lists (listTagged); default: every region enabled for the account (DescribeRegions). */
  regions?: string[];
  /** Regions the sweep lists at once; default 8. */
  sweepConcurrency?: number;
  /** EC2 endpoint (tests: the emulator); default: the SDK's (which honours AWS_ENDPOINT_URL_EC2). */
  endpoint?: string;
  /** STS endpoint for the account id (tests: the emulator); default: the SDK's (AWS_ENDPOINT_URL_STS). */
  stsEndpoint?: string;
  /** IAM endpoint for per-cluster instance profiles (tests: the emulator); default: the SDK's (AWS_ENDPOINT_URL_IAM). */
  iamEndpoint?: string;
  /** First wait before RunInstances is tried again while a new instance profile is not yet visible (ms); default 2000. */
  iamBackoffMs?: number;
  /** Explicit credentials (tests only); default: the SDK chain (env, profiles, SSO, IMDS). */
  credentials?: AwsCredentials;
  /** SDK attempts per call (its own retries of throttling/5xx); default 3. */
  maxAttempts?: number;
  /** Where Skydeck's SSH key lives (created when missing); default ~/.skydeck/keys. */
  keyDir?: string;
  /** Where fetched instance-type listings are cached; default ~/.skydeck/catalog. */
  catalogDir?: string;
  /** Zones to try per region, overriding the built-in table. */
  zones?: Record<string, string[]>;
  /** How the default image is looked up (tests point it at the emulator's images). */
  image?: { owner: string; namePattern: (arch: 'amd64' | 'arm64') => string };
  /** Connect to private IPs instead of public ones (VPN / same VPC). */
  usePrivateIps?: boolean;
  /** Between two looks in waitInstances (ms); default 3000. */
  pollMs?: number;
  /** Security-group clean-up after terminate: poll interval and give-up bound (ms). */
  cleanupPollMs?: number;
  cleanupTimeoutMs?: number;
  /** The environment read for SKYDECK_AWS_CONTROLLER_NODE (jobBoundary.ts); default process.env (tests pass their own). */
  env?: Record<string, string | undefined>;
  /** Diagnostics (never secrets). */
  log?(message: string): void;
}

/** Canonical's account and the Ubuntu 22.04 image names (hvm-ssd or hvm-ssd-gp3 builds). */
export const UBUNTU_2204 = {
  owner: '099720109477',
  namePattern: (arch: 'amd64' | 'arm64') => `ubuntu/images/hvm-ssd*/ubuntu-jammy-22.04-${arch}-server-*`,
};
