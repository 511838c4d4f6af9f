import { isProviderError, ProviderError, type ProviderErrorKind } from '../provider';
import { LOGIN_FIX } from './subscription';

// Azure failures come as a RestError ({error:{code,message}} of a synchronous answer: code and
// statusCode kept) or, for a long-running operation that ended Failed, as a plain Error whose
// message is "The long-running operation has failed. <code>. <message>". Both are read here.

const CAPACITY = new Set([
  'SkuNotAvailable', 'AllocationFailed', 'ZonalAllocationFailed', 'OverconstrainedAllocationRequest',
  'OverconstrainedZonalAllocationRequest', 'AllocationFailedVMSeriesNotAvailable', 'SpotVMCapacityUnavailable',
  'ZonalAllocationFailedNoCapacity', 'NotAvailableForSubscription',
]);
const QUOTA = new Set(['QuotaExceeded', 'PublicIPCountLimitReached', 'ResourceQuotaExceeded', 'LowPriorityCoresQuotaExceeded']);
const AUTH = new Set([
  'AuthenticationFailed', 'InvalidAuthenticationToken', 'InvalidAuthenticationTokenTenant', 'ExpiredAuthenticationToken',
  'AuthorizationFailed', 'LinkedAuthorizationFailed', 'CredentialUnavailableError', 'AuthenticationRequiredError',
  'AggregateAuthenticationError', 'SubscriptionNotFound', 'InvalidSubscriptionId',
]);
const TRANSIENT = new Set(['RetryableError', 'InternalServerError', 'ServiceUnavailable', 'TooManyRequests', 'GatewayTimeout',
  'AnotherOperationInProgress', 'OperationPreempted', 'REQUEST_SEND_ERROR', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT']);

interface AzLike {
  name?: string;
  code?: string;
  statusCode?: number;
  message?: string;
}

/** The Azure error code and message, whether from a RestError or a failed LRO. */
export function azureCode(e: unknown): { code: string; message: string; status?: number } {
  const x = (e ?? {}) as AzLike;
  const message = (x.message ?? String(e)).split('\n')[0];
  const lro = /long-running operation has failed\.\s*([A-Za-z]+)\.\s*(.*)$/.exec(message);
  if (lro) return { code: lro[1], message: lro[2] || message };
  return { code: x.code ?? x.name ?? 'Error', message, status: x.statusCode };
}

export function classifyAzureError(e: unknown): ProviderErrorKind {
  const { code, message, status } = azureCode(e);
  if (CAPACITY.has(code)) return 'capacity';
  // Core and spot quotas arrive as OperationNotAllowed with the quota named in the message.
  if (QUOTA.has(code) || (code === 'OperationNotAllowed' && /quota/i.test(message))) return 'quota';
  if (AUTH.has(code) || status === 401 || status === 403) return 'auth';
  if (TRANSIENT.has(code) || status === 429 || (status !== undefined && status >= 500)) return 'transient';
  if (status !== undefined && status >= 400) return 'config';
  if (/credential|authenticat|az login|managed identity/i.test(message)) return 'auth';
  // A failed LRO with a code we do not know: a retry of the same request will rarely help.
  if (/long-running operation has failed/.test((e as AzLike)?.message ?? '')) return 'config';
  return 'transient';
}

function hintFor(kind: ProviderErrorKind, code: string, message: string): string | undefined {
  if (kind === 'auth') {
    if (code === 'AuthorizationFailed') return 'the identity in use lacks a role on the subscription (Contributor, or Virtual Machine Contributor + Network Contributor)';
    if (code === 'SubscriptionNotFound' || code === 'InvalidSubscriptionId') return 'check AZURE_SUBSCRIPTION_ID or "az account set --subscription <id>"';
    return `run "${LOGIN_FIX}" (or set AZURE_CLIENT_ID, AZURE_TENANT_ID and AZURE_CLIENT_SECRET for a service principal)`;
  }
  if (kind === 'quota') return 'request more vCPU quota (portal → Subscriptions → Usage + quotas), or use another region, a smaller size or on-demand instead of spot';
  if (kind === 'capacity') return 'this size has no capacity here right now: another region or size may';
  if (kind === 'config' && code === 'MissingSubscriptionRegistration') return 'register the providers: az provider register -n Microsoft.Compute && az provider register -n Microsoft.Network';
  if (kind === 'config' && /image/i.test(code + message)) return 'check image_id (publisher:offer:sku:version, e.g. Canonical:0001-com-ubuntu-server-jammy:22_04-lts-gen2:latest)';
  if (kind === 'config' && /vmSize|VM size/i.test(message)) return 'check instance_type: az vm list-sizes --location <region>';
  return undefined;
}

/** The ProviderError for an SDK error; the message names the call, never credentials. */
export function toAzureError(e: unknown, action?: string): ProviderError {
  if (isProviderError(e)) return e;
  const kind = classifyAzureError(e);
  const { code, message } = azureCode(e);
  const text = message.startsWith(code) ? message : `${code}: ${message}`;
  return new ProviderError(kind, `${action ? `${action}: ` : ''}${text}`, hintFor(kind, code, message));
}

export async function azCall<T>(action: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toAzureError(e, action);
  }
}

/** A resource (or group) that is not there; never a subscription that cannot be found (that is "unknown"). */
export function isNotFound(e: unknown): boolean {
  const { code, status } = azureCode(e);
  if (code === 'SubscriptionNotFound' || code === 'InvalidSubscriptionId') return false;
  return status === 404 || code === 'ResourceGroupNotFound' || code === 'ResourceNotFound' || code === 'NotFound';
}

/**
 * The one 404 that means "this cluster is gone": ARM saying that this very resource group
 * does not exist (in the subscription the client is bound to). Any other 404 — a subscription
 * not found, a wrong endpoint — is an error, never "no VMs".
 */
export function isGroupGone(e: unknown, group: string): boolean {
  const { code, message } = azureCode(e);
  if (code !== 'ResourceGroupNotFound') return false;
  // The SDK's pager drops ARM's message ("Pagination failed with …"); when one names a group, it must be ours.
  const named = /resource group '([^']+)'/i.exec(message)?.[1];
  return !named || named.toLowerCase() === group.toLowerCase();
}
