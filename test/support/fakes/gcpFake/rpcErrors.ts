// HTTP errors that carry google.rpc error details (error.details[], each a google.protobuf.Any
// named by "@type"; google/rpc/error_details.proto), in the shapes Google APIs send them:
// ErrorInfo {reason, domain, metadata} decides what a client may do, Help links a fix.
// The legacy error.errors[] entry (domain, reason) is sent alongside, as Compute does.
import { type HttpError, httpError } from './bodies';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const HELP = 'type.googleapis.com/google.rpc.Help';

export const errorInfo = (reason: string, domain: string, metadata: Record<string, string>) => ({ '@type': ERROR_INFO, reason, domain, metadata });

/** The Compute API is not enabled for the project (reason SERVICE_DISABLED, domain googleapis.com). */
export function serviceDisabled(projectNumber: string): HttpError {
  const enable = `https://console.developers.google.com/apis/api/compute.googleapis.com/overview?project=${projectNumber}`;
  return httpError(403,
    `Compute Engine API has not been used in project ${projectNumber} before or it is disabled. Enable it by visiting ${enable} then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.`,
    'accessNotConfigured', { domain: 'usageLimits', extendedHelp: 'https://console.developers.google.com' }, [
      { '@type': HELP, links: [{ description: 'Google developers console API activation', url: enable }] },
      errorInfo('SERVICE_DISABLED', 'googleapis.com', { service: 'compute.googleapis.com', consumer: `projects/${projectNumber}` }),
    ]);
}

/** A per-minute request quota (HTTP 429 RESOURCE_EXHAUSTED, reason RATE_LIMIT_EXCEEDED): passes by itself. */
export function rateLimited(projectNumber: string): HttpError {
  return httpError(429,
    `Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute' of service 'compute.googleapis.com' for consumer 'project_number:${projectNumber}'.`,
    'rateLimitExceeded', { domain: 'usageLimits' }, [
      errorInfo('RATE_LIMIT_EXCEEDED', 'googleapis.com', {
        service: 'compute.googleapis.com', consumer: `projects/${projectNumber}`,
        quota_metric: 'compute.googleapis.com/read_requests', quota_limit: 'ReadRequestsPerMinutePerProject', quota_limit_value: '1500',
      }),
    ]);
}

/**
 * Too many operations in flight on the project: Compute answers HTTP 403 "Rate Limit Exceeded"
 * with reason rateLimitExceeded and an ErrorInfo of its own domain, whose map it names
 * `metadatas` (compute.proto's ErrorInfo), not `metadata`.
 */
export function concurrentOperations(projectNumber: string, location: string): HttpError {
  return httpError(403, 'Rate Limit Exceeded', 'rateLimitExceeded', { domain: 'usageLimits' }, [{
    '@type': ERROR_INFO, reason: 'CONCURRENT_OPERATIONS_QUOTA_EXCEEDED', domain: 'compute.googleapis.com',
    metadatas: { containerId: projectNumber, containerType: 'PROJECT', location },
  }]);
}

/** A stockout answered on the call itself (AIP-193's example: HTTP 429, reason RESOURCE_AVAILABILITY). */
export function stockout(zone: string, vmType: string, zonesWithCapacity: string[]): HttpError {
  return httpError(429,
    `The zone '${zone}' does not have enough resources available to fulfill the request. Try a different zone, or try again later.`,
    'resourceExhausted', {}, [
      errorInfo('RESOURCE_AVAILABILITY', 'compute.googleapis.com', { zone, vmType, zonesWithCapacity: zonesWithCapacity.join(',') }),
      { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: `A ${vmType} VM instance is currently unavailable in the ${zone} zone.` },
    ]);
}
