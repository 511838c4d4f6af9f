import { randomBytes } from 'node:crypto';
import { OpsError } from './errors';

// SkyPilot's rule, which also keeps names safe as directory names and in shell words.
const VALID = /^[a-zA-Z]([-_.a-zA-Z0-9]*[a-zA-Z0-9])?$/;

export function checkClusterName(name: string): void {
  if (name.length > 63 || !VALID.test(name)) {
    throw new OpsError(
      'usage',
      `cluster name "${name}" is not valid: start with a letter, then letters, digits, '-', '_' or '.', ` +
        `end with a letter or digit, at most 63 characters`,
    );
  }
}

export function generateClusterName(user: string): string {
  const u = user.toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 12) || 'user';
  return `sky-${randomBytes(2).toString('hex')}-${u}`;
}
