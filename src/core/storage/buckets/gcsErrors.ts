// What a failed @google-cloud/storage call means to the user: ApiError (JSON API calls) and
// GaxiosError (resumable uploads) both carry the HTTP status, as `code` or `response.status`.
import { StorageError } from '../errors';

export const gcsLabel = (name: string): string => `gs://${name}`;
const label = gcsLabel;

/** Maps a client error (ApiError or GaxiosError: `code` is the HTTP status) to a StorageError. */
export function gcsError(name: string, what: string, e: unknown): StorageError {
  const err = e as { code?: number | string; message?: string; response?: { status?: number } };
  const code = Number(err.response?.status ?? err.code);
  const msg = (err.message ?? String(e)).split('\n')[0].slice(0, 300);
  if (code === 401 || code === 403) {
    return new StorageError('denied', label(name), `${what} was denied (${code}: ${msg})`,
      'Check the credentials (gcloud auth application-default login, or the VM\'s service account) and grant them Storage Admin on the project.');
  }
  if (code === 404) return new StorageError('bucket-missing', label(name), `${what}: the bucket does not exist`, 'Check the bucket name and the project.');
  if (code === 409 && what.startsWith('creating')) {
    return new StorageError('bucket-exists', label(name), 'a bucket of that name already exists (bucket names are global in GCS)', 'Choose another name.');
  }
  if (/default credentials|Could not load the default/i.test(msg)) {
    return new StorageError('no-credentials', label(name), `${what}: no Google credentials were found`, 'Run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS.');
  }
  if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN/.test(msg)) return new StorageError('unreachable', label(name), `${what}: ${msg}`, 'Check the network path to storage.googleapis.com (proxy, firewall).');
  return new StorageError('failed', label(name), `${what} failed (${Number.isFinite(code) ? `${code}: ` : ''}${msg})`, 'Retry; if it persists, check the project\'s Cloud Storage settings.');
}
