import * as vscode from 'vscode';
import type { ClusterRecord } from '../../core/state';
import { clusterContextValue, flagState } from './clusterFlags';
import type { ClusterCostText } from '../../core/cost/costView';

const ICONS: Record<string, vscode.ThemeIcon> = {
  UP: new vscode.ThemeIcon('vm-running', new vscode.ThemeColor('testing.iconPassed')),
  INIT: new vscode.ThemeIcon('loading~spin'),
  STOPPED: new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('disabledForeground')),
};
// A cluster whose agent did not answer on the last refresh: still UP in the state, but flagged.
const UNREACHABLE = new vscode.ThemeIcon('vm-outline', new vscode.ThemeColor('list.warningForeground'));
// Teardown or stop not proven: machines may still run and cost money, so it must stand out.
const UNCONFIRMED = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
const IN_PROGRESS = new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('list.warningForeground'));

export class ClusterNode extends vscode.TreeItem {
  readonly kind = 'cluster';

  constructor(readonly cluster: ClusterRecord, refreshError: string | undefined, hasJobs: boolean, readonly cost?: ClusterCostText) {
    super(cluster.name, hasJobs ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    this.id = `cluster:${cluster.uid}`;
    const flag = flagState(cluster);
    this.iconPath = flag ? (flag.needsAction ? UNCONFIRMED : IN_PROGRESS) : refreshError ? UNREACHABLE : ICONS[cluster.status] ?? new vscode.ThemeIcon('question');
    // "$3.06/h · $12.40 so far" first: what a cluster costs is what users scan the list for.
    const money = cost?.billed ? `${cost.rate} · ${cost.spend} so far` : undefined;
    this.description = [flag?.label, money, summarizeResources(cluster.resources), cluster.region, cluster.provider].filter(Boolean).join(' · ');
    // status, where it runs (ssh-only actions match ":remote"), then ":stoppable" for clouds and
    // the flag token (Retry Down matches ":down-unconfirmed"); see clusterFlags.ts.
    this.contextValue = clusterContextValue(cluster);
    const error = refreshError ?? cluster.last_error;
    this.tooltip = clusterTooltip(cluster, flag?.hint, refreshError ?? cluster.last_error, cost);
  }
}

/**
 * Markdown for the layout, plain text for every value: names, addresses and errors come from
 * the state file and remote hosts, so they are appended escaped (links, icons and all) and the
 * string is never trusted to run commands.
 */
function clusterTooltip(cluster: ClusterRecord, hint: string | undefined, error: string | null | undefined, cost?: ClusterCostText): vscode.MarkdownString {
  const md = new vscode.MarkdownString('', true); // $(warning) in the flag line
  md.isTrusted = false;
  const line = (label: string, value: string): void => {
    md.appendMarkdown(`\n\n${label}`);
    md.appendText(value);
  };
  md.appendMarkdown('**');
  md.appendText(cluster.name);
  md.appendMarkdown('** — ');
  md.appendText(`${cluster.status} (${cluster.provider})`);
  if (hint) {
    md.appendMarkdown('\n\n$(warning) ');
    md.appendText(hint);
  }
  line('uid: ', cluster.uid);
  if (cluster.head_address) line('head: ', cluster.head_address);
  md.appendMarkdown('\n\n');
  // launched_at is epoch ms (provision/loop.ts).
  md.appendText(`launched: ${new Date(cluster.launched_at).toLocaleString()}`);
  for (const l of cost?.detail ?? []) line('cost: ', l);
  if (cluster.autostop_minutes !== null) {
    md.appendMarkdown('\n\n');
    md.appendText(`autostop: after ${cluster.autostop_minutes} idle minutes, ${cluster.autostop_down ? 'torn down' : 'stopped'}`);
  }
  if (error) line('last error: ', error);
  return md;
}

/** The state keeps resources as JSON ({cpus, memory, accelerators, …}); show the gist. */
function summarizeResources(raw: string | null): string {
  if (!raw) return '';
  try {
    const r = JSON.parse(raw) as Record<string, unknown>;
    const parts: string[] = [];
    if (r.instance_type) parts.push(String(r.instance_type));
    if (r.accelerators && typeof r.accelerators === 'object') {
      parts.push(Object.entries(r.accelerators as Record<string, number>).map(([k, v]) => `${k}:${v}`).join(','));
    } else if (typeof r.accelerators === 'string') parts.push(r.accelerators);
    if (r.cpus) parts.push(`${r.cpus} CPU`);
    if (r.memory) parts.push(`${r.memory} GB`);
    return parts.join(' ');
  } catch {
    return raw;
  }
}
