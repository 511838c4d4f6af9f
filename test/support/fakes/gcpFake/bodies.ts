// Error bodies exactly as the Compute API sends them (HTTP errors) and as finished Operations
// carry them (operation errors), so Skydeck's REST client (src/core/clouds/gcp/rest.ts)
// parses what it parses in production.

export class HttpError extends Error {
  constructor(readonly status: number, readonly body: unknown) {
    super(`HTTP ${status}`);
  }
}

const STATUS_NAME: Record<number, string> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE',
};

/**
 * The error body of a Google API (AIP-193; google.rpc.Status over HTTP/JSON): error.code (HTTP),
 * error.message, error.errors[] {message, domain, reason} (the legacy list Compute still sends),
 * error.status (the google.rpc.Code name) and, where the API gives them, error.details[]
 * (google.protobuf.Any values such as google.rpc.ErrorInfo; see rpcErrors.ts).
 */
export function httpError(code: number, message: string, reason: string, extra: Record<string, unknown> = {}, details?: unknown[]): HttpError {
  return new HttpError(code, {
    error: {
      code, message, errors: [{ message, domain: extra.domain ?? 'global', reason, ...extra }], status: STATUS_NAME[code] ?? 'UNKNOWN',
      ...(details?.length ? { details } : {}),
    },
  });
}

/** An error of the IAM and Resource Manager APIs: google.rpc.Status (code, message, status), no errors[] as Compute has. */
export const rpcError = (code: number, status: string, message: string) => new HttpError(code, { error: { code, message, status } });

export const notFound = (resource: string) => httpError(404, `The resource '${resource}' was not found`, 'notFound');
export const alreadyExists = (resource: string) => httpError(409, `The resource '${resource}' already exists`, 'alreadyExists');
export const invalid = (message: string) => httpError(400, message, 'invalid');
export const unauthenticated = () => httpError(401,
  'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
  'required', { location: 'Authorization', locationType: 'header' });
/** An IAM denial: the legacy reason "forbidden", and the ErrorInfo Google APIs attach to one. */
export const forbidden = (permission: string, resource: string) => httpError(403, `Required '${permission}' permission for '${resource}'`, 'forbidden', {}, [
  { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'IAM_PERMISSION_DENIED', domain: 'compute.googleapis.com', metadata: { permission, resource } },
]);
export const quotaHttp = (metric: string, limit: number, region: string) => httpError(403,
  `Quota '${metric}' exceeded.  Limit: ${limit.toFixed(1)} in region ${region}.`, 'quotaExceeded', { domain: 'usageLimits' });
/** A token whose scopes do not cover the API (an instance's service account without the compute scope). */
export const insufficientScopes = () => httpError(403, 'Request had insufficient authentication scopes.', 'insufficientPermissions');
export const backendError = () => httpError(503, 'Internal error. Please try again or contact Google Support.', 'backendError');

/** One of Operation.error.errors[] (compute v1: code, message, location, errorDetails[] of ErrorDetails). */
export interface OpError {
  code: string;
  message: string;
  errorDetails?: unknown[];
}

/** A stockout as an Operation reports it: code, message and ErrorDetails (errorInfo with Compute's `metadatas` map, help, localizedMessage). */
export const poolExhausted = (project: string, zone: string, vmType = 'e2-standard-2'): OpError => ({
  code: 'ZONE_RESOURCE_POOL_EXHAUSTED',
  message: `The zone 'projects/${project}/zones/${zone}' does not have enough resources available to fulfill the request.  Try a different zone, or try again later.`,
  errorDetails: [
    { errorInfo: { reason: 'resource_availability', domain: 'compute.googleapis.com', metadatas: { zone, vmType } } },
    { help: { links: [{ description: 'Troubleshooting documentation', url: 'https://cloud.google.com/compute/docs/resource-error' }] } },
    { localizedMessage: { locale: 'en-US', message: `A ${vmType} VM instance is currently unavailable in the ${zone} zone. Alternatively, you can try your request again with a different VM hardware configuration or at a later time. For more information, see the troubleshooting documentation.` } },
  ],
});

export const quotaOp = (metric: string, limit: number, region: string): OpError => ({
  code: 'QUOTA_EXCEEDED',
  message: `Quota '${metric}' exceeded.  Limit: ${limit.toFixed(1)} in region ${region}.`,
  errorDetails: [{ quotaInfo: { metricName: `compute.googleapis.com/${metric.toLowerCase()}`, limitName: `${metric}-per-project-region`, dimensions: { region }, limit } }],
});

/** The API's filter language, the subset Skydeck sends: `labels.k = "v"`, `labels.k:*`, `name = x`, ANDed (parenthesised or not). */
export function parseFilter(filter: string | null): (obj: Record<string, unknown>) => boolean {
  if (!filter) return () => true;
  const terms = filter.split(/\s+AND\s+|\)\s*\(/i).map((t) => t.replace(/^\s*\(|\)\s*$/g, '').trim()).filter(Boolean);
  const tests = terms.map((t) => {
    const m = /^([\w.-]+)\s*(=|!=|:)\s*"?([^"]*)"?$/.exec(t);
    if (!m) throw invalid(`Invalid value for field 'filter': '${filter}'. Invalid list filter expression.`);
    const [, field, op, value] = m;
    return (obj: Record<string, unknown>) => {
      const v = field.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
      if (op === ':') return value === '*' ? v !== undefined : String(v ?? '').includes(value);
      return op === '=' ? String(v) === value : String(v) !== value;
    };
  });
  return (obj) => tests.every((f) => f(obj));
}
