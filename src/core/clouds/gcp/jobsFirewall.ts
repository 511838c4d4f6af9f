import { randomUUID } from 'node:crypto';
import { isProviderError, ProviderError, TAG_CLUSTER, TAG_UID, TAG_WORKSPACE, type TaggedIdentity } from '../provider';
import type { IdentityGone } from '../clusterIdentity';
import type { GcpClients } from './clients';
import { gcpCall, isAlreadyExists, isNotFound } from './errors';
import { getRule, jobsFirewallName } from './firewall';
import { sleepMs } from './iamBackoff';
import { waitOperation, type WaitOptions } from './operations';
import type { Firewall, Operation } from './types';

// A managed-jobs controller's job clusters share one ingress rule, skydeck-<uid>-jobs (SSH
// only), made and deleted by this machine at the controller's launch and down, so the
// controller's own identity needs no firewall write: IAM Conditions cannot narrow firewall
// permissions (only Instance and Disk names), and a project-wide write would let it open any
// port to any VM of the project. The rule targets the controller's jobs account
// (targetServiceAccounts, jobsAccount.ts), which every job cluster runs as, and not a network
// tag: whoever may set a tag may set any tag (IAM cannot narrow compute.instances.setTags by
// value), so a tag-targeted rule would need that right on the controller, and with it the
// controller could put a job VM into any other rule of the project (a user cluster's ports). The
// one account the controller may attach is its jobs account (actAs in that account's own
// policy), so through this rule it reaches SSH on its own job VMs and nothing more. GCE refuses
// a rule that mixes tags and accounts, so a rule an older Skydeck made (targetTags) is replaced
// whole (firewalls.update) at the controller's next launch from here.

/** Who the rule is for: its description carries uid, workspace and cluster, as the accounts' do, so the sweep can tell whose it is. */
export interface JobsRuleOwner {
  uid: string;
  clusterName: string;
  workspaceId: string;
  /** The controller's jobs account e-mail: the rule's one target. */
  jobsAccount: string;
}

const SSH = [{ IPProtocol: 'tcp', ports: ['22'] }];
/** Tries of a delete that GCE answers with a transient error (5xx, 429, no answer). */
const DELETE_TRIES = 4;

function wantedRule(o: JobsRuleOwner, network: string, sourceRanges?: string[]): Firewall {
  const name = jobsFirewallName(o.uid);
  return {
    name, network: `global/networks/${network}`, direction: 'INGRESS', priority: 1000,
    targetServiceAccounts: [o.jobsAccount], sourceRanges: sourceRanges?.length ? sourceRanges : ['0.0.0.0/0'], allowed: SSH,
    description: `Skydeck managed-jobs controller ${o.uid}: SSH to its job clusters (VMs running as its jobs account) ${TAG_UID}=${o.uid} ${TAG_WORKSPACE}=${o.workspaceId} ${TAG_CLUSTER}=${o.clusterName}`,
  };
}

/** The rule lets SSH reach the VMs running as `jobsAccount`, not VMs by network tag: what a job cluster of the controller needs. */
export function servesJobsAccount(rule: Firewall, jobsAccount: string): boolean {
  const targets = rule.targetServiceAccounts ?? [];
  return !rule.disabled && !rule.targetTags?.length && targets.length === 1 && targets[0] === jobsAccount;
}

/** As made here (sources as someone narrowed them are kept). */
function asWanted(rule: Firewall, o: JobsRuleOwner): boolean {
  return servesJobsAccount(rule, o.jobsAccount) && (rule.direction ?? 'INGRESS') === 'INGRESS'
    && !rule.sourceTags?.length && !rule.sourceServiceAccounts?.length && JSON.stringify(rule.allowed) === JSON.stringify(SSH);
}

/**
 * Makes controller `o.uid`'s jobs rule, or sets an existing one back to it (an older Skydeck's
 * targeted a network tag). `made` is called once this call's insert was accepted: only a rule
 * this call made may a failed launch delete (gcpProvider.ts undoJobsRule). A 409 at the insert
 * means another launch of the same uid made it meanwhile: that rule is used, not a failure.
 */
export async function ensureJobsFirewall(c: GcpClients, w: WaitOptions, network: string, o: JobsRuleOwner, made: () => void): Promise<void> {
  const name = jobsFirewallName(o.uid);
  const path = `projects/${w.project}/global/firewalls`;
  let rule = await getRule(c, w.project, name);
  if (!rule) {
    const op = await gcpCall('firewalls.insert', async () => {
      try {
        return await c.post<Operation>(path, wantedRule(o, network), { requestId: randomUUID() });
      } catch (e) {
        if (isAlreadyExists(e)) return undefined;
        throw e;
      }
    });
    if (op) {
      made();
      await waitOperation(c, 'firewalls.insert', op, w);
      return;
    }
    rule = await getRule(c, w.project, name);
    if (!rule) throw new ProviderError('transient', `GCP: firewalls.insert of ${name} answered 409 (exists), but firewalls.get does not find it`);
  }
  if (asWanted(rule, o)) return;
  const body = wantedRule(o, network, rule.sourceRanges);
  const op = await gcpCall('firewalls.update', () => c.put<Operation>(`${path}/${name}`, body, { requestId: randomUUID() }));
  await waitOperation(c, 'firewalls.update', op, w);
}

/**
 * Deletes controller `uid`'s jobs rule and proves it gone (GET → 404); names it when there was
 * one. A transient answer to the delete (5xx, 429) is tried again after a short backoff with the
 * same requestId (GCE runs a repeated request once); a 404 is what was asked for.
 */
export async function deleteJobsFirewall(c: GcpClients, w: WaitOptions, uid: string): Promise<IdentityGone[]> {
  const name = jobsFirewallName(uid);
  if (!(await getRule(c, w.project, name))) return [];
  const requestId = randomUUID();
  const first = Math.min(w.pollMs, 1000);
  let op: Operation | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      op = await gcpCall('firewalls.delete', async () => {
        try {
          return await c.delete<Operation>(`projects/${w.project}/global/firewalls/${name}`, { requestId });
        } catch (e) {
          if (isNotFound(e)) return undefined;
          throw e;
        }
      });
      break;
    } catch (e) {
      if (attempt >= DELETE_TRIES || !isProviderError(e) || e.kind !== 'transient') throw e;
      await sleepMs(first * 2 ** (attempt - 1));
    }
  }
  if (op) await waitOperation(c, 'firewalls.delete', op, w);
  if (await getRule(c, w.project, name)) throw new Error(`GCP: the firewall rule ${name} is still there after its delete`);
  return [{ kind: 'firewall rule', name, proof: 'firewalls.get answers 404' }];
}

/** Whose jobs rule `rule` is (none when it is not one): its uid, bound to its name, then workspace and cluster where its description says. */
export function tagsOfJobsRule(rule: Firewall): Record<string, string> {
  const d = rule.description ?? '';
  const field = (k: string) => new RegExp(`(?:^|\\s)${k}=(\\S+)`).exec(d)?.[1];
  // A rule an older Skydeck made says only "Skydeck managed-jobs controller <uid>: …".
  const uid = field(TAG_UID) ?? /^Skydeck managed-jobs controller (\S+):/.exec(d)?.[1];
  if (!uid || !rule.name || jobsFirewallName(uid) !== rule.name) return {};
  return { [TAG_UID]: uid, [TAG_WORKSPACE]: field(TAG_WORKSPACE) ?? '?', [TAG_CLUSTER]: field(TAG_CLUSTER) ?? '?' };
}

/** Every controller jobs rule of the project (firewalls.list, page by page), for the sweep: one whose uid no row owns is a leftover. */
export async function listJobsFirewalls(c: GcpClients, project: string): Promise<TaggedIdentity[]> {
  const rules = await gcpCall('firewalls.list', () => c.list<Firewall>(`projects/${project}/global/firewalls`));
  return rules.flatMap((r) => {
    const tags = tagsOfJobsRule(r);
    return tags[TAG_UID] ? [{ kind: 'firewall rule', name: r.name!, tags }] : [];
  });
}
