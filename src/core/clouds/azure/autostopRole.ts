import type { AzureClients } from './clients';
import { customRoleGuid, ensureCustomRole, type CustomRoleSpec } from './customRole';

// What an autostop head's system-assigned identity may do on its own resource group (the
// assignment's scope, identity.ts): list the group's VMs and deallocate them, exactly the two
// calls of agent/skydeck_agent_lib/azure_stop.py's stop (the POST is not polled):
//   GET {group}/providers/Microsoft.Compute/virtualMachines  → Microsoft.Compute/virtualMachines/read
//   POST {group}/.../virtualMachines/{vm}/deallocate         → Microsoft.Compute/virtualMachines/deallocate/action
// In place of the built-in Virtual Machine Contributor, which also holds virtualMachines/* —
// runCommand, extensions, write — i.e. running code on any VM of its scope as that VM (and its
// identities). A managed-jobs controller assigns it to no one (it makes no role assignment and
// its job clusters get no autostop: controllerRole.ts); an older version's controller could,
// under a condition naming it by id, until this machine starts it again. One role per
// subscription at a fixed GUID, created and set back by this machine's credentials only: the
// laptop makes it when it launches a controller, or a cluster with autostop while it is missing.

export const AUTOSTOP_ROLE_NAME = 'Skydeck autostop';
export const AUTOSTOP_ACTIONS: readonly string[] = ['Microsoft.Compute/virtualMachines/read', 'Microsoft.Compute/virtualMachines/deallocate/action'];

export const AUTOSTOP_ROLE: CustomRoleSpec = {
  roleName: AUTOSTOP_ROLE_NAME, seed: 'skydeck-autostop', actions: AUTOSTOP_ACTIONS, pinned: true,
  description: 'Skydeck autostop heads: list and deallocate the VMs of their own cluster (set by Skydeck; edits are set back)',
  what: 'autostop', fix: 'launch without autostop and stop the cluster with "skydeck stop"',
};

/** The role's GUID in a subscription (its definition id's last segment). */
export function autostopRoleGuid(subscription: string): string {
  return customRoleGuid(AUTOSTOP_ROLE.seed, subscription);
}

/** Found or created, set back when changed; returns its id. Needs roleDefinitions read and write. */
export function ensureAutostopRole(c: AzureClients, lro: { updateIntervalInMs: number }, log?: (m: string) => void): Promise<string> {
  return ensureCustomRole(c, AUTOSTOP_ROLE, lro, log);
}
