// What a task would cost, for the hover on `resources:` (and, later, Launch's confirmation and
// launch --dryrun): the chosen candidate and the cheapest alternatives, per node and for
// num_nodes, on-demand and spot, each price with its source; "unknown" never 0. No vscode
// import (unit-tested in plain Node).

import { formatRate, isKnown, launchPlan, PriceBook, planSummary, priceSources, SHIPPED_SPOT_NOTE, type LaunchPlan, type PricedCandidate, type PriceAnswer } from '../../core/cost';
import { parseTaskText } from '../../core/task';

function plain(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-!~|<>]/g, (c) => `\\${c}`);
}

function row(c: PricedCandidate): string {
  const gpu = c.gpus ? `${c.gpus.name}:${c.gpus.count}` : '-';
  return `| ${plain(c.cloud)} | ${plain(c.region)}${c.regionAssumed ? '\\*' : ''} | ${plain(c.instanceType)} | ${plain(gpu)} | ${formatRate(c.onDemand)} | ${formatRate(c.spotPrice)} | ${formatRate(c.total)} |`;
}

function sources(ps: PriceAnswer[]): string {
  const marked = ps.some((p) => isKnown(p) && p.shippedSpot);
  return plain(priceSources(ps)) + (marked ? ` ${plain(SHIPPED_SPOT_NOTE)}.` : '');
}

/** Markdown for a plan; one table, the chosen row first. */
export function planMarkdown(plan: LaunchPlan, nodes: number): string {
  const rows = [...(plan.chosen ? [plan.chosen] : []), ...plan.alternatives];
  const out: string[] = [];
  if (plan.notBilled) out.push(plain(plan.notBilled));
  if (plan.chosen) out.push(`**Launch picks** ${plain(plan.chosen.instanceType)} on ${plain(plan.chosen.cloud)}: ${formatRate(plan.chosen.total)}${nodes > 1 ? ` for ${nodes} nodes` : ''}${plan.chosen.spot ? ' (spot)' : ''}`);
  if (rows.length) {
    out.push(`| cloud | region | type | GPUs | on-demand/node | spot/node | ${nodes > 1 ? `× ${nodes} nodes` : 'total'} |\n|---|---|---|---|---|---|---|\n${rows.map(row).join('\n')}`);
    out.push(`${sources(rows.flatMap((c) => [c.onDemand, c.spotPrice]))}${rows.some((c) => c.regionAssumed) ? ' \\* no region named: priced in the cloud\'s reference region.' : ''}`);
  }
  for (const u of plan.unmatched) out.push(plain(u));
  return out.join('\n\n');
}

/** The plan of a task file's text (its first task), or undefined if it does not parse. Never throws. */
export function taskPlan(text: string, book = new PriceBook()): LaunchPlan | undefined {
  try {
    const r = parseTaskText(text);
    const task = r.ok ? r.tasks[0] : undefined;
    return task ? launchPlan(task, book) : undefined;
  } catch {
    return undefined;
  }
}

/** The plan's Markdown for a task file's text, or undefined if it does not parse. Never throws. */
export function taskCostMarkdown(text: string, book = new PriceBook()): string | undefined {
  const plan = taskPlan(text, book);
  return plan && planMarkdown(plan, plan.nodes);
}

/** The CodeLens on the top-level `resources:` line: the plan in one line (planSummary). */
export function costLens(text: string, book = new PriceBook()): { line: number; title: string } | undefined {
  const m = /^resources[ \t]*:/m.exec(text);
  if (!m) return undefined;
  const plan = taskPlan(text, book);
  if (!plan) return undefined;
  return { line: text.slice(0, m.index).split('\n').length - 1, title: planSummary(plan) };
}
