import { randomBytes } from 'node:crypto';
import { clusterNameProblem } from '../state/clusterName';
import { OpsError } from './errors';

export function checkClusterName(name: string): void {
  const problem = clusterNameProblem(name);
  if (problem) throw new OpsError('usage', problem);
}

export function generateClusterName(user: string): string {
  const u = user.toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 12) || 'user';
  return `sky-${randomBytes(2).toString('hex')}-${u}`;
}
