import type { LaunchPlan } from '../core/ops';
import { planHeader, planNotes, planRows, type LaunchPlan as PricedPlan } from '../core/cost';
import { printable } from '../core/task';
import { table } from './table';

/**
 * SkyPilot's optimizer table: what launch picks (✔) and the cheapest alternatives, per node
 * and for num_nodes, with where each price comes from. `launch --dryrun` and `launch` (before
 * it provisions a new cloud cluster) both print this.
 */
export function optimizerTable(p: PricedPlan): string {
  const nodes = p.nodes;
  const rows = planRows(p);
  // Each cell is made printable (a type or region from the task could hold control characters).
  const safe = rows.map((r) => r.map(printable));
  const out = safe.length ? [`Considered resources (${nodes} node${nodes === 1 ? '' : 's'}):`, table(planHeader(nodes), safe).trimEnd()] : [];
  return [...out, ...planNotes(p).map(printable)].join('\n') + '\n';
}

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
    p.candidates.forEach((c, i) => lines.push(`  ${i + 1}. ${c.where}`));
  }
  const tail = [p.sync.length ? 'Synced before the job:' : 'Nothing is synced (no workdir or file_mounts).', ...p.sync.map((s) => `  ${s}`), `Setup: ${p.setup}.`, ...p.warnings.map((w) => `warning: ${w}`)];
  return [...lines.map(printable), ...(p.existing ? [] : [optimizerTable(p.priced).trimEnd()]), ...tail.map(printable)].join('\n') + '\n';
}
