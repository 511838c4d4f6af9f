import { ComputeManagementClient } from '@azure/arm-compute';
import { NetworkManagementClient } from '@azure/arm-network';
import { ResourceManagementClient } from '@azure/arm-resources';
import { DefaultAzureCredential } from '@azure/identity';
import type { TokenCredential } from '@azure/core-auth';
import { ProviderError } from '../provider';
import { localSubscription, SUBSCRIPTION_FIX } from './subscription';
import type { AzureProviderOptions } from './options';

/** The three ARM clients one provider uses, sharing credential, endpoint and TLS settings. */
export class AzureClients {
  readonly subscriptionId: string;
  readonly compute: ComputeManagementClient;
  readonly network: NetworkManagementClient;
  readonly resources: ResourceManagementClient;
  readonly credential: TokenCredential;

  /** `subscription`: a cluster's recorded one; default the configured one. */
  constructor(opts: AzureProviderOptions, subscription?: string) {
    const sub = subscription ?? localSubscription(opts);
    if (!sub) throw new ProviderError('auth', 'no Azure subscription is configured', SUBSCRIPTION_FIX);
    this.subscriptionId = sub;
    this.credential = (opts.credential as TokenCredential | undefined) ?? sharedCredential((opts.env ?? process.env)[MI_RESOURCE_ENV]);
    const common = {
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.ca ? { tlsOptions: { ca: opts.ca } } : {}),
      retryOptions: { maxRetries: opts.sdkRetries ?? 2 },
    };
    this.compute = new ComputeManagementClient(this.credential, sub, common);
    this.network = new NetworkManagementClient(this.credential, sub, common);
    this.resources = new ResourceManagementClient(this.credential, sub, common);
  }
}

/**
 * Set on a managed-jobs controller VM (AzureProvider.controllerNodeEnv): the resource id of the
 * user-assigned identity to sign in as through IMDS. DefaultAzureCredential takes a managed
 * identity's resource id only as an option, not from its own environment variables.
 */
export const MI_RESOURCE_ENV = 'SKYDECK_AZURE_IDENTITY_RESOURCE_ID';

const shared = new Map<string, TokenCredential>();

/** One DefaultAzureCredential for every subscription's clients: one login, one token cache. */
function sharedCredential(managedIdentityResourceId?: string): TokenCredential {
  let cred = shared.get(managedIdentityResourceId ?? '');
  if (!cred) {
    cred = managedIdentityResourceId ? new DefaultAzureCredential({ managedIdentityResourceId }) : new DefaultAzureCredential();
    shared.set(managedIdentityResourceId ?? '', cred);
  }
  return cred;
}
