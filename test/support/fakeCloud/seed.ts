// The property test's seed: PROVISION_SEED when set; under CI one derived from the commit
// (fixed for a commit, so a red run reproduces, and rotated by the next commit); otherwise
// random. Always printed, so any run can be replayed.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';

/** When CI has no git checkout: still fixed. */
const CI_FALLBACK_SEED = 1404;

export function propertySeed(env: NodeJS.ProcessEnv = process.env): { seed: number; source: string } {
  if (env.PROVISION_SEED !== undefined && env.PROVISION_SEED !== '') {
    const seed = Number(env.PROVISION_SEED);
    if (!Number.isInteger(seed)) throw new Error(`PROVISION_SEED must be an integer, got ${JSON.stringify(env.PROVISION_SEED)}`);
    return { seed, source: 'PROVISION_SEED' };
  }
  if (env.CI) {
    const commit = env.GITHUB_SHA || gitHead();
    if (!commit) return { seed: CI_FALLBACK_SEED, source: 'CI (no commit found: constant)' };
    return { seed: seedOf(commit), source: `CI, commit ${commit.slice(0, 12)}` };
  }
  return { seed: Math.floor(Math.random() * 2 ** 31), source: 'random (set PROVISION_SEED to replay)' };
}

export function seedOf(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) & 0x7fffffff;
}

function gitHead(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: __dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}
