import type { LaunchPlan } from '../core/ops';
import { printable } from '../core/task';

/** `launch --dryrun`: the plan in words; every path and name from the task is made printable. */
export function planText(p: LaunchPlan): string {
  const lines = [
    `Dry run: nothing is created, connected to or uploaded.`,
    p.existing
      ? `Cluster ${p.cluster} (${p.cloud}) exists (${p.existing}): it would be reused${p.existing === 'STOPPED' ? ' after a start' : ''}.`
      : `Cluster ${p.cluster} would be created on ${p.cloud} with ${p.numNodes} node${p.numNodes === 1 ? '' : 's'}.`,
  ];
  if (!p.existing) {
    lines.push('Candidates, in the order tried:');
    p.candidates.forEach((c, i) => lines.push(`  ${i + 1}. ${c.where}${c.instanceType && !c.where.includes(c.instanceType) ? ` ${c.instanceType}` : ''}  ${c.price}`));
  }
  lines.push(p.sync.length ? 'Synced before the job:' : 'Nothing is synced (no workdir or file_mounts).');
  for (const s of p.sync) lines.push(`  ${s}`);
  lines.push(`Setup: ${p.setup}.`);
  for (const w of p.warnings) lines.push(`warning: ${w}`);
  return lines.map(printable).join('\n') + '\n';
}
