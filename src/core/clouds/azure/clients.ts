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
    this.credential = (opts.credential as TokenCredential | undefined) ?? sharedCredential();
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

let defaultCredential: TokenCredential | undefined;

/** One DefaultAzureCredential for every subscription's clients: one login, one token cache. */
function sharedCredential(): TokenCredential {
  defaultCredential ??= new DefaultAzureCredential();
  return defaultCredential;
}
