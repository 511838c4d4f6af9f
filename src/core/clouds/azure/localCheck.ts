// The part of "Check Clouds" for Azure that needs neither the SDK nor the network, so the
// extension may import this file eagerly (see check.ts for the full check).
import type { ProviderErrorKind } from '../provider';
import { credentialSource, localSubscription, LOGIN_FIX, SUBSCRIPTION_FIX } from './subscription';
import type { AzureProviderOptions } from './options';

export type AzureCheck =
  | { ok: true; details: { subscriptionId: string; credentials: string; resourceGroups: number } }
  | { ok: false; kind: ProviderErrorKind; reason: string; fix: string };

/**
 * What can be known with no SDK and no network. Managed identity on an Azure VM without
 * IDENTITY_ENDPOINT cannot be seen offline: set AZURE_SUBSCRIPTION_ID there and run checkAzure.
 */
export function checkAzureLocal(opts: AzureProviderOptions = {}): Extract<AzureCheck, { ok: false }> | undefined {
  const sub = localSubscription(opts);
  if (!credentialSource(opts) && !sub) {
    return { ok: false, kind: 'auth', reason: 'no Azure credentials found (no Azure CLI login, no AZURE_CLIENT_ID/AZURE_TENANT_ID/AZURE_CLIENT_SECRET)', fix: LOGIN_FIX };
  }
  if (!sub) return { ok: false, kind: 'auth', reason: 'no Azure subscription is configured', fix: SUBSCRIPTION_FIX };
  return undefined;
}
