import * as crypto from 'node:crypto';
import { RunInstancesCommand, type EC2Client, type RunInstancesCommandInput, type RunInstancesCommandOutput } from '@aws-sdk/client-ec2';
import { ProviderError } from '../provider';
import { awsErrorCode, ec2Call } from './errors';

/** Tries before giving up on a profile EC2 does not see yet (IAM is eventually consistent). */
export const PROFILE_TRIES = 6;

/** EC2's refusal of an instance profile it cannot see (yet): InvalidParameterValue naming iamInstanceProfile. */
export function isProfileNotVisible(e: unknown): boolean {
  const msg = (e as { message?: string } | null)?.message ?? '';
  return awsErrorCode(e) === 'InvalidParameterValue' && /iamInstanceProfile|Invalid IAM Instance Profile/i.test(msg);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * RunInstances, tried again (bounded, with doubling waits) while EC2 does not yet see an
 * instance profile created moments ago. The refused call created nothing, so each try gets
 * a fresh ClientToken (the SDK's own retries of one try reuse it).
 */
export async function runInstances(ec2: EC2Client, input: RunInstancesCommandInput, backoffMs: number, log?: (m: string) => void): Promise<RunInstancesCommandOutput> {
  const profile = input.IamInstanceProfile?.Name;
  for (let attempt = 1; ; attempt++) {
    try {
      return await ec2.send(new RunInstancesCommand({ ...input, ClientToken: crypto.randomUUID() }));
    } catch (e) {
      if (!profile || !isProfileNotVisible(e)) return ec2Call('RunInstances', () => Promise.reject(e));
      if (attempt >= PROFILE_TRIES) {
        throw new ProviderError('transient', `RunInstances: EC2 still does not see the instance profile ${profile} after ${PROFILE_TRIES} tries`,
          'new IAM instance profiles usually become usable within a minute: launch again shortly');
      }
      const waitMs = Math.min(backoffMs * 2 ** (attempt - 1), 30_000);
      log?.(`aws: EC2 does not see the new instance profile ${profile} yet; trying RunInstances again in ${Math.round(waitMs / 100) / 10} s (try ${attempt + 1}/${PROFILE_TRIES})`);
      await sleep(waitMs);
    }
  }
}
