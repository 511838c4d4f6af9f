import type { EC2Client, Instance } from '@aws-sdk/client-ec2';
import { deleteGroup, groupsOf } from './securityGroup';

export interface CleanupDeps {
  ec2: EC2Client;
  uid: string;
  describe(): Promise<Instance[]>;
  pollMs: number;
  timeoutMs: number;
  /** False once a newer launch of the uid started (it will use the group): give up. */
  current(): boolean;
  log(message: string): void;
  /** Deletes the cluster's other per-cluster resources (its instance profile); true when none is left. */
  alsoDelete?(): Promise<boolean>;
  /** Told why it is still waiting, once per change ("i-0ab: shutting-down"). */
  waiting?(message: string): void;
}

function sleep(ms: number): Promise<void> {
  // unref: a pending clean-up must not keep a CLI process alive; a left group costs nothing.
  return new Promise((r) => setTimeout(r, ms).unref());
}

/**
 * Deletes the cluster's security groups, then its instance profile and role, once every
 * instance of the uid is terminated (not just shutting down: AWS refuses to delete a group an
 * instance still uses, and a live node must keep its bucket access). Never deletes on
 * a failed look, and stops as soon as a newer launch of the same uid begins.
 */
export async function cleanupGroupsWhenTerminated(d: CleanupDeps): Promise<'deleted' | 'live' | 'superseded'> {
  const deadline = Date.now() + d.timeoutMs;
  let said = '';
  for (;;) {
    if (!d.current()) return 'superseded';
    let done = false;
    try {
      const all = await d.describe();
      const notYet = all.filter((i) => i.State?.Name !== 'terminated').map((i) => `${i.InstanceId}: ${i.State?.Name ?? 'pending'}`).join(', ');
      if (notYet && notYet !== said) d.waiting?.(`waiting for ${notYet} to be terminated`);
      said = notYet;
      if (!notYet && d.current()) {
        const groups = await groupsOf(d.ec2, d.uid);
        const results = [];
        for (const g of groups) results.push(await deleteGroup(d.ec2, g));
        const gone = results.every(Boolean);
        if (gone && groups.length) d.log(`aws: deleted security group(s) ${groups.join(', ')} of ${d.uid}`);
        // A failure here throws and is tried at the next poll; a role of the name that is not
        // tagged as this cluster's is left alone, which no poll would change.
        if (gone && d.alsoDelete) await d.alsoDelete();
        done = gone;
      }
    } catch (e) {
      d.log(`aws: security-group clean-up of ${d.uid}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (done) return 'deleted';
    if (Date.now() >= deadline) return 'live';
    await sleep(d.pollMs);
  }
}
