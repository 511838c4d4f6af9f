import { createHash } from 'node:crypto';
import { ProviderError } from '../provider';
import { azureCode, toAzureError } from './errors';
import type { AzureClients } from './clients';
import { AUTOSTOP_ROLE_NAME, autostopRoleGuid, ensureAutostopRole } from './autostopRole';

// Azure autostop needs ARM from the VM (a shut-down VM keeps billing until deallocated): the
// head gets a system-assigned managed identity, and that identity a role on the cluster's
// resource group only — the group's deletion takes the assignment with it. To deallocate: the
// custom role "Skydeck autostop" (autostopRole.ts: VM read and deallocate, nothing else); to
// delete the group (autodown): the built-in Contributor (the group holds VMs, disks, networks,
// identities and this very assignment, all deleted with it).
// Every launch with autostop asks for the custom role: one narrow grant whoever launches (a
// managed-jobs controller VM launches none: its job clusters' autostop is refused before anything
// is made, and it may make no role assignment, controllerRole.ts). It is assigned first and
// created only when missing (the laptop also sets it back when it launches a controller). An
// account that may grant roles but not define them (Role Based Access Control Administrator), or
// may grant only Virtual Machine Contributor (a conditioned delegation), gets that as before,
// said in the log, so no launch that worked before is refused now. Clusters launched before hold
// Virtual Machine Contributor on their group: it goes with the group as before.

/** Built-in role definition ids (the same in every subscription). */
export const ROLE_VM_CONTRIBUTOR = '9980e02c-c2be-4d73-94e8-173b1dc7cf3c';
export const ROLE_CONTRIBUTOR = 'b24988ac-6180-42a0-ab88-20f7382dd24c';
/** Microsoft.Authorization/roleAssignments (azure-rest-api-specs: authorization stable 2022-04-01). */
export const ROLE_ASSIGNMENTS_API = '2022-04-01';
const API_VERSION = ROLE_ASSIGNMENTS_API;

export const GRANT_FIX = 'creating a role assignment needs Owner, User Access Administrator or Role Based Access Control Administrator ' +
  'on the subscription; without one, launch without autostop and stop the cluster with "skydeck stop"';

/** Deleting the group (autodown) needs Contributor; deallocating, the subscription's "Skydeck autostop". */
export function selfStopRole(down: boolean, subscription: string): string {
  return down ? ROLE_CONTRIBUTOR : autostopRoleGuid(subscription);
}

/** The assignment's name is a GUID derived from what it grants, so a retried launch re-puts the same one. */
export function assignmentName(scope: string, principalId: string, role: string): string {
  const h = createHash('sha256').update(`${scope.toLowerCase()}|${principalId}|${role}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface GrantOptions extends AssignOptions {
  group: string;
  down: boolean;
  log?: (m: string) => void;
}

/** Gives the head's identity its role on the group; an account that may not grant roles gets a clear auth error. */
export async function grantSelfStop(o: GrantOptions): Promise<void> {
  const scope = `/subscriptions/${o.c.subscriptionId}/resourceGroups/${o.group}`;
  const role = selfStopRole(o.down, o.c.subscriptionId);
  const denied = (e: unknown) => {
    const { code, message } = azureCode(e);
    return code === 'AuthorizationFailed'
      ? new ProviderError('auth', `autostop on Azure: your account may not give the head VM's identity a role on ${o.group} (${message})`, GRANT_FIX)
      : toAzureError(e, 'roleAssignments.create');
  };
  let refused: unknown;
  try {
    await putAssignment(o, scope, role);
    return;
  } catch (e) {
    const { code } = azureCode(e);
    if (o.down || (code !== 'RoleDefinitionDoesNotExist' && code !== 'AuthorizationFailed')) throw denied(e);
    if (code === 'AuthorizationFailed') refused = e;
  }
  if (!refused) {
    // The subscription has no "Skydeck autostop" yet: made by this machine's credentials, then assigned.
    let made = true;
    try {
      await ensureAutostopRole(o.c, o.lro, o.log);
    } catch (e) {
      if ((e as ProviderError).kind !== 'auth') throw e;
      made = false;
    }
    if (made) {
      try {
        await putAssignment({ ...o, newRole: true }, scope, role);
        return;
      } catch (e) {
        throw denied(e);
      }
    }
  }
  // Virtual Machine Contributor, as before: for an account that may not define the role, or may
  // grant VM Contributor only (a conditioned delegation). Asking widens nothing: what the caller
  // may grant is ARM's to decide.
  try {
    await putAssignment(o, scope, ROLE_VM_CONTRIBUTOR);
  } catch (e) {
    const { code, message } = azureCode(e);
    if (code !== 'AuthorizationFailed' || refused) throw denied(refused ?? e);
    // An identity that may grant the custom role only (an older version's controller, under its condition).
    throw new ProviderError('auth', `autostop on Azure: the custom role "${AUTOSTOP_ROLE_NAME}" is not in subscription ${o.c.subscriptionId}, and this identity may neither create it nor grant Virtual Machine Contributor on ${o.group} (${message})`,
      'launch the managed-jobs controller again from your machine with an account that is Owner or User Access Administrator (it creates the role), or launch without autostop');
  }
  const why = refused ? `this account may not grant it (${azureCode(refused).message})` : `the custom role is not in subscription ${o.c.subscriptionId} and this account may not create it`;
  o.log?.(`azure: autostop: the head of ${o.group} got Virtual Machine Contributor on its group in place of "${AUTOSTOP_ROLE_NAME}" (it may also run commands on the cluster's VMs): ${why}`);
}

export interface AssignOptions {
  c: AzureClients;
  principalId: string;
  lro: { updateIntervalInMs: number };
  /** How long a just-created identity may take to be visible to the role service (PrincipalNotFound). */
  replicationWaitMs?: number;
  /** roleAssignments 2022-04-01 `description` (bucket grants carry the cluster's uid in it). */
  description?: string;
  /** An ABAC condition (version 2.0) narrowing what the assignment allows (controllerRole.ts). */
  condition?: string;
  /** The role was just created: wait out its replication (RoleDefinitionDoesNotExist) as a new principal's. */
  newRole?: boolean;
}

/** A role definition's id as a subscription sees it (built-in and custom ones alike). */
export function roleDefinitionId(subscription: string, role: string): string {
  return `/subscriptions/${subscription}/providers/Microsoft.Authorization/roleDefinitions/${role}`;
}

/** The id of the assignment putAssignment makes (deterministic: a retry re-puts the same one). */
export function assignmentId(scope: string, principalId: string, role: string): string {
  return `${scope}/providers/Microsoft.Authorization/roleAssignments/${assignmentName(scope, principalId, role)}`;
}

/**
 * PUTs the role assignment, waiting out a new principal's replication (PrincipalNotFound);
 * an existing one of the same grant is fine. Other errors are thrown as the SDK gave them.
 */
export async function putAssignment(o: AssignOptions, scope: string, role: string): Promise<string> {
  const id = assignmentId(scope, o.principalId, role);
  const body = { properties: {
    roleDefinitionId: roleDefinitionId(o.c.subscriptionId, role),
    principalId: o.principalId,
    // Named so ARM does not have to look the principal up (which fails while it replicates).
    principalType: 'ServicePrincipal',
    ...(o.description ? { description: o.description } : {}),
    ...(o.condition ? { condition: o.condition, conditionVersion: '2.0' } : {}),
  } };
  const until = Date.now() + (o.replicationWaitMs ?? 120_000);
  for (;;) {
    try {
      // The SDK's path template is "/{+resourceId}": the id goes without its leading slash.
      await o.c.resources.resources.beginCreateOrUpdateByIdAndWait(id.slice(1), API_VERSION, body, o.lro);
      return id;
    } catch (e) {
      const { code } = azureCode(e);
      if (code === 'RoleAssignmentExists') return id;
      if ((code === 'PrincipalNotFound' || (o.newRole && code === 'RoleDefinitionDoesNotExist')) && Date.now() < until) {
        await new Promise((r) => setTimeout(r, Math.min(5000, Math.max(10, o.lro.updateIntervalInMs * 2))));
        continue;
      }
      throw e;
    }
  }
}
