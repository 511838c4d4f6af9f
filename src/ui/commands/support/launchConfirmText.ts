// What Launch asks before it goes (confirmLaunch.ts shows it as a modal): for a new cloud
// cluster, the priced plan (what launch picks, the cheapest alternatives, per node and for
// num_nodes; ops pricedPlan, the function `launch` and `launch --dryrun` print); and the local
// folders and files that will be uploaded. No vscode import (unit-tested in plain Node).
import { cloudFor, localUploadLines, pricedPlan } from '../../../core/ops';
import { formatRate, isKnown, planDetail, type LaunchPlan } from '../../../core/cost';
import type { Task } from '../../../core/task';

export interface LaunchQuestion {
  message: string;
  detail: string;
  /** The button that goes on. */
  action: string;
  /** The plan shown (undefined: nothing billed, or an existing cluster). */
  plan?: LaunchPlan;
}

/**
 * The question, or undefined when there is nothing to ask (an existing cluster or a local
 * launch, with nothing to upload). `where` is the cloud (and region) picked for a task that
 * names none; `isNew` whether the cluster will be provisioned.
 */
export function launchQuestion(task: Task, base: string, what: string, o: { isNew: boolean; where?: { cloud: string; region?: string } }): LaunchQuestion | undefined {
  const uploads = localUploadLines(task, base);
  const cloud = cloudFor({ cloud: o.where?.cloud }, task, undefined);
  const priced = o.isNew ? pricedPlan(task, cloud, { cloud: o.where?.cloud, region: o.where?.region }) : undefined;
  const plan = priced?.chosen ? priced : undefined;
  if (!plan && !uploads.length) return undefined;
  const parts: string[] = [];
  if (plan) parts.push(`A new ${cloud} cluster of ${plan.nodes} node${plan.nodes === 1 ? '' : 's'}.\n${planDetail(plan)}`);
  if (uploads.length) {
    parts.push(`Uploaded from this machine:\n${uploads.join('\n')}\n\nRelative paths resolve against the workspace folder ${base}, as sky resolves them against the folder it runs in.`);
  }
  const c = plan?.chosen;
  const rate = !c ? '' : isKnown(c.total) ? ` It bills about ${formatRate(c.total)}${c.spot ? ' (spot)' : ''} while up.` : ' Its price per hour is unknown on this machine.';
  const message = plan ? `${what}?${rate}` : `${what}: these are uploaded from this machine. Go on?`;
  return { message, detail: parts.join('\n\n'), action: plan ? 'Launch' : 'Go on', ...(plan ? { plan } : {}) };
}
