// Error bodies as the Cloud Storage JSON API sends them
// (https://cloud.google.com/storage/docs/json_api/v1/status-codes): {error: {code, message,
// errors: [{message, domain, reason, locationType?, location?}]}}, JSON, the HTTP status = code.

export class GcsHttpError extends Error {
  constructor(readonly status: number, readonly body: unknown) {
    super(`HTTP ${status}`);
  }
}

export function gcsError(code: number, message: string, reason: string, extra: Record<string, string> = {}): GcsHttpError {
  return new GcsHttpError(code, { error: { code, message, errors: [{ message, domain: 'global', reason, ...extra }] } });
}

/** No Authorization header at all: the real service answers 401 "required" for an anonymous caller. */
export const anonymous = (permission: string, what: string) =>
  gcsError(401, `Anonymous caller does not have ${permission} access to ${what}.`, 'required', { locationType: 'header', location: 'Authorization' });
/** A bearer token the service does not accept (expired, revoked, made up). */
export const invalidCredentials = () => gcsError(401, 'Invalid Credentials', 'authError', { locationType: 'header', location: 'Authorization' });
/** A valid identity without the IAM permission. */
export const forbidden = (who: string, permission: string, what: string) =>
  gcsError(403, `${who} does not have ${permission} access to ${what}.`, 'forbidden');
export const noSuchBucket = () => gcsError(404, 'The specified bucket does not exist.', 'notFound');
export const noSuchObject = (bucket: string, name: string) => gcsError(404, `No such object: ${bucket}/${name}`, 'notFound');
export const bucketNotEmpty = (name: string) =>
  gcsError(409, `The bucket you tried to delete is not empty.`, 'conflict', { bucket: name });
export const bucketTaken = () =>
  gcsError(409, 'Your previous request to create the named bucket succeeded and you already own it.', 'conflict');
export const invalid = (message: string) => gcsError(400, message, 'invalid');
export const required = (message: string) => gcsError(400, message, 'required');
