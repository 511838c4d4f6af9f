import * as os from 'node:os';
import * as path from 'node:path';
import type { StateStore } from '../state';
import type { PoolsResult } from '../clouds/sshPools';
import type { ProviderRegistry } from '../clouds/provider';
import type { Bootstrap, Clock, ProvisionTiming } from '../provision';
import type { BucketStoreFactory } from '../storage/buckets';
import type { StoreKind } from '../storage/types';
import { Connections } from './connections';

/** Everything an operation needs from its host (extension, CLI or test). */
export interface OpsContext {
  store: StateStore;
  /** Local-cloud clusters keep their agent base dir under <workspaceRoot>/.skydeck/local/. */
  workspaceRoot: string;
  sshPools(): PoolsResult;
  connections: Connections;
  /** Progress of slow steps, e.g. "Installing the agent on hello". */
  progress(step: string): void;
  log(message: string): void;
  /** Something the user should know that does not stop the operation. */
  warn(message: string): void;
  /** The user name recorded with each job. */
  user: string;
  /** Cloud providers (aws, gcp, azure; the fake in tests). Absent: only local and ssh. */
  providers?: ProviderRegistry;
  /** Tests run the provision loop on a scaled clock; default the wall clock. */
  clock?: Clock;
  timing?: Partial<ProvisionTiming>;
  /** How long down waits for a terminated cluster's identities (AWS bucket role) to be deleted; default 10 min. */
  identityReleaseMs?: number;
  /** Container runtimes tried on a node, in order; default podman, then docker (tests: a missing one). */
  containerRuntimes?: string[];
  /** How a provider cluster's head gets its agent; default: over SSH (agentBootstrap.ts). */
  bootstrap?: Bootstrap;
  /**
   * May the user's own store credentials be handed to nodes that have no VM identity (ssh
   * pools, local)? 'share' only by explicit opt-in (skydeck.storage.shareCredentials,
   * SKYDECK_SHARE_CREDENTIALS=1, --share-credentials); absent = 'never'.
   */
  storageCredentials?: 'share' | 'never';
  /** Where the user's R2 files are (r2.credentials, accountid); default ~/.cloudflare (tests: a temp dir). */
  cloudflareDir?: string;
  /** Overrides for every bucket mount's store access: an emulator's endpoint in tests. */
  storageAccess?: { endpoint?: string; region?: string; azureEmulator?: boolean };
  /** The bucket control plane per store (tests: S3 on moto); default storage/buckets' built-in ones. */
  bucketStores?: Partial<Record<StoreKind, BucketStoreFactory>>;
}

export function defaultKnownHostsFile(): string {
  return path.join(os.homedir(), '.skydeck', 'known_hosts');
}

export { localBaseDir } from './localBase';
