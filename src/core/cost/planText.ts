// The launch plan (candidates.ts) in plain words, the one wording every place shows it in:
// the CLI's optimizer table (launch, launch --dryrun), Launch's confirmation in the editor, the
// CodeLens on `resources:` and its quick pick. The hover's Markdown table is costText.ts.
// Prices print with formatRate: "unknown" never 0, "~" on a shipped (approximate) spot price.

import type { LaunchPlan, PricedCandidate } from './candidates';
import { formatRate, isKnown, SHIPPED_SPOT_NOTE, type PriceAnswer } from './price';

/** The chosen candidate first, then the alternatives (already cheapest first). */
export function planCandidates(plan: LaunchPlan): PricedCandidate[] {
  return [...(plan.chosen ? [plan.chosen] : []), ...plan.alternatives];
}

export function planHeader(nodes: number): string[] {
  return ['CLOUD', 'REGION', 'INSTANCE', 'vCPUs', 'MEM(GB)', 'GPUS', 'ON-DEMAND/NODE', 'SPOT/NODE', nodes > 1 ? `× ${nodes} NODES` : 'TOTAL', 'CHOSEN'];
}

const gpuText = (c: PricedCandidate) => (c.gpus ? `${c.gpus.name}:${c.gpus.count}` : '-');
const shape = (x: number) => (x > 0 ? String(x) : '?');

/** One row per candidate, columns as planHeader; the region is starred when assumed. */
export function planRows(plan: LaunchPlan): string[][] {
  return planCandidates(plan).map((c) => [
    c.cloud, `${c.region}${c.regionAssumed ? '*' : ''}`, c.instanceType, shape(c.vcpus), shape(c.memoryGb), gpuText(c),
    formatRate(c.onDemand), formatRate(c.spotPrice), `${formatRate(c.total)}${c.spot ? ' spot' : ''}`, c === plan.chosen ? '✔' : '',
  ]);
}

/** "Prices: shipped table (2026-11-30); aws DescribeSpotPriceHistory (2026-12-01)". */
export function priceSources(ps: readonly PriceAnswer[]): string {
  const known = [...new Set(ps.filter(isKnown).map((p) => `${p.source} (${p.asOf})`))];
  return known.length ? `Prices: ${known.join('; ')}.` : 'No price known on this machine.';
}

/** What goes under the table: why nothing is billed, the starred regions, sources, "~", what fits nowhere. */
export function planNotes(plan: LaunchPlan): string[] {
  const cs = planCandidates(plan);
  const out: string[] = [];
  if (plan.notBilled) out.push(plan.notBilled);
  if (cs.some((c) => c.regionAssumed)) out.push('* no region named: priced in the cloud\'s reference region.');
  if (cs.length) out.push(priceSources(cs.flatMap((c) => [c.onDemand, c.spotPrice])));
  if (cs.some((c) => [c.onDemand, c.spotPrice, c.total].some((p) => isKnown(p) && p.shippedSpot))) out.push(SHIPPED_SPOT_NOTE);
  for (const u of plan.unmatched) out.push(u);
  return out;
}

/** One line for a candidate where columns do not align (a modal's detail, a quick pick). */
export function candidateLine(c: PricedCandidate): string {
  const nodes = c.nodes > 1 ? ` ×${c.nodes} = ${formatRate(c.total)}` : '';
  return `${c.instanceType} · ${c.cloud} ${c.region}${c.regionAssumed ? '*' : ''} · ${gpuText(c)} · on-demand ${formatRate(c.onDemand)}, spot ${formatRate(c.spotPrice)}${c.spot ? ' (spot asked)' : ''} per node${nodes}`;
}

/** The plan as lines for a modal: the choice, the alternatives, the notes. */
export function planDetail(plan: LaunchPlan): string {
  const lines: string[] = [];
  if (plan.chosen) lines.push(`Launch picks: ${candidateLine(plan.chosen)}`);
  if (plan.alternatives.length) lines.push(plan.chosen ? 'Cheapest alternatives:' : 'On a cloud:', ...plan.alternatives.map((c) => `  ${candidateLine(c)}`));
  return [...lines, ...planNotes(plan)].join('\n');
}

/** Alternatives whose total is known and below the choice's (all known ones when the choice's is unknown). */
export function cheaperAlternatives(plan: LaunchPlan): PricedCandidate[] {
  const chosen = plan.chosen && isKnown(plan.chosen.total) ? plan.chosen.total.usdPerHour : Number.POSITIVE_INFINITY;
  return plan.alternatives.filter((a) => isKnown(a.total) && a.total.usdPerHour < chosen);
}

/** "g5.xlarge us-east-1 · $1.01/h ×2 = $2.01/h · 3 cheaper alternatives" (the CodeLens). */
export function planSummary(plan: LaunchPlan): string {
  const c = plan.chosen;
  if (!c) {
    const cheapest = plan.alternatives.find((a) => isKnown(a.total));
    if (!plan.notBilled) return plan.unmatched[0] ?? 'no known instance type fits';
    return cheapest ? `${plan.notBilled} · on a cloud from ${formatRate(cheapest.total)} (${cheapest.instanceType}, ${cheapest.cloud})` : plan.notBilled;
  }
  const rate = c.nodes > 1 ? `${formatRate(c.perNode)} ×${c.nodes} = ${formatRate(c.total)}` : formatRate(c.total);
  const n = cheaperAlternatives(plan).length;
  const alt = n ? `${n} cheaper alternative${n === 1 ? '' : 's'}` : plan.alternatives.length ? 'cheapest of its options' : 'no alternatives';
  return `${c.instanceType} ${c.region}${c.spot ? ' spot' : ''} · ${rate} · ${alt}`;
}
