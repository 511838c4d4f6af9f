import { AzureClients } from './clients';
import { azCall, toAzureError } from './errors';
import { credentialSource } from './subscription';
import { checkAzureLocal, type AzureCheck } from './localCheck';
import type { AzureProviderOptions } from './options';

export { checkAzureLocal, type AzureCheck };

/** "Is Azure usable?": the local check, then one resource-group listing in the subscription. */
export async function checkAzure(opts: AzureProviderOptions = {}): Promise<AzureCheck> {
  const local = checkAzureLocal(opts);
  if (local) return local;
  try {
    const c = new AzureClients({ ...opts, sdkRetries: opts.sdkRetries ?? 0 });
    const resourceGroups = await azCall('resourceGroups.list', async () => {
      let n = 0;
      for await (const _ of c.resources.resourceGroups.list()) n++;
      return n;
    });
    return { ok: true, details: { subscriptionId: c.subscriptionId, credentials: credentialSource(opts) ?? 'DefaultAzureCredential', resourceGroups } };
  } catch (e) {
    const pe = toAzureError(e);
    return { ok: false, kind: pe.kind, reason: pe.message, fix: pe.hint ?? 'check the network connection to management.azure.com and retry' };
  }
}
