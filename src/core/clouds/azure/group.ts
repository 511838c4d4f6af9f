import { ProviderError } from '../provider';
import type { AzureClients } from './clients';
import { azCall, isGroupGone } from './errors';

/**
 * Waits until the resource group is gone, or (with `onlyIfDeleting`) returns at once when it
 * exists and is not being deleted. A group in "Deleting" cannot be written to, so a new
 * attempt with the same uid waits for the previous attempt's teardown to finish.
 */
export async function waitGroupGone(c: AzureClients, group: string, pollMs: number, timeoutMs: number, onlyIfDeleting = false): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await groupState(c, group);
    if (state === 'gone' || (onlyIfDeleting && state !== 'Deleting')) return;
    if (Date.now() > deadline) throw new ProviderError('transient', `resource group ${group} is still ${state}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** The group's provisioning state ("Succeeded", "Deleting", …), or 'gone' when ARM has no such group. */
export function groupState(c: AzureClients, group: string): Promise<string> {
  return azCall('resourceGroups.get', async () => {
    try {
      return (await c.resources.resourceGroups.get(group)).properties?.provisioningState ?? 'Succeeded';
    } catch (e) {
      if (isGroupGone(e, group)) return 'gone';
      throw e;
    }
  });
}
