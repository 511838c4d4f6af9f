import * as path from 'node:path';
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import { parse as parseYaml } from 'yaml';
import type { ClusterRecord } from '../../../core/state';
import type { ClustersModel } from '../../tree/clustersModel';
import { isNode } from '../../tree/nodeKind';
import { KEEP_OPEN } from './promptOptions';

/** The file names the schema is bound to in package.json (yamlValidation): task YAMLs. */
const TASK_NAME = [/\.sky\.yaml$/i, /^sky.*\.yaml$/i, /^task.*\.yaml$/i];

export function isTaskYamlName(file: string): boolean {
  const base = path.basename(file);
  return TASK_NAME.some((re) => re.test(base));
}

/** Thrown when the user dismisses a prompt: the command just stops, no error shown. */
export class Dismissed extends Error {
  constructor() {
    super('dismissed');
  }
}

/** The task file: the argument, else the active YAML editor, else a pick over the workspace. */
export async function resolveTaskFile(arg: unknown): Promise<vscode.Uri> {
  if (arg instanceof vscode.Uri) return arg;
  const doc = vscode.window.activeTextEditor?.document;
  if (doc && doc.uri.scheme === 'file' && (doc.languageId === 'yaml' || /\.ya?ml$/i.test(doc.fileName))) {
    if (doc.isDirty) await doc.save(); // launch what the user sees
    return doc.uri;
  }
  const files = (await vscode.workspace.findFiles('**/*.{sky.yaml,yaml}', '**/{node_modules,.git,.skydeck}/**', 500)).filter((u) =>
    isTaskYamlName(u.fsPath),
  );
  if (files.length === 0) throw new Error('no task YAML found in the workspace (files named *.sky.yaml, sky*.yaml or task*.yaml)');
  const pick = await vscode.window.showQuickPick(
    files.map((uri) => ({ label: path.basename(uri.fsPath), description: vscode.workspace.asRelativePath(uri), uri })),
    { title: 'Skydeck: pick a task YAML', matchOnDescription: true, ...KEEP_OPEN },
  );
  if (!pick) throw new Dismissed();
  return pick.uri;
}

/** A default cluster name from the task's `name:`, made valid for checkClusterName. */
export async function defaultClusterName(taskFile: string): Promise<string> {
  let name = '';
  try {
    const doc = parseYaml(await fs.readFile(taskFile, 'utf8')) as { name?: unknown } | null;
    if (typeof doc?.name === 'string') name = doc.name;
  } catch {
    // A broken YAML gets a file-based name; launch reports the YAML error with its position.
  }
  if (!name) name = path.basename(taskFile).replace(/\.(sky\.)?ya?ml$/i, '');
  const clean = name.replace(/[^-_.a-zA-Z0-9]/g, '-').replace(/^[^a-zA-Z]+/, '').replace(/[^a-zA-Z0-9]+$/, '').slice(0, 63);
  return clean || 'sky-cluster';
}

/** An existing cluster (optionally only those matching `filter`). */
export async function pickCluster(model: ClustersModel, title: string, filter: (c: ClusterRecord) => boolean = () => true): Promise<ClusterRecord> {
  await model.reload();
  const clusters = model.all.filter(filter);
  if (clusters.length === 0) throw new Error('there are no clusters to pick; launch a task first');
  const pick = await vscode.window.showQuickPick(
    clusters.map((c) => ({ label: c.name, description: `${c.status} · ${c.provider}`, cluster: c })),
    { title, ...KEEP_OPEN },
  );
  if (!pick) throw new Dismissed();
  return pick.cluster;
}

/** Launch target: an existing cluster or a new name (default from the task). */
export async function pickOrNameCluster(model: ClustersModel, suggested: string): Promise<string> {
  await model.reload().catch(() => undefined); // the list is a convenience; a failing agent must not block launching
  const NEW = '$(add) New cluster…';
  const items = [
    { label: NEW, description: suggested },
    ...model.all.map((c) => ({ label: c.name, description: `${c.status} · ${c.provider}` })),
  ];
  const pick = items.length > 1 ? await vscode.window.showQuickPick(items, { title: 'Skydeck: launch on which cluster?', ...KEEP_OPEN }) : items[0];
  if (!pick) throw new Dismissed();
  if (pick.label !== NEW) return pick.label;
  const name = await vscode.window.showInputBox({
    title: 'Skydeck: name the new cluster',
    ...KEEP_OPEN,
    value: suggested,
    validateInput: (v) => (/^[a-zA-Z]([-_.a-zA-Z0-9]*[a-zA-Z0-9])?$/.test(v) && v.length <= 63 ? undefined : "start with a letter; letters, digits, '-', '_' or '.'; end with a letter or digit"),
  });
  if (!name) throw new Dismissed();
  return name;
}

/** A cluster from a tree node argument, else a pick. */
export async function clusterFromArg(model: ClustersModel, arg: unknown, title: string, filter?: (c: ClusterRecord) => boolean): Promise<string> {
  if (isNode(arg, 'cluster')) return arg.cluster.name;
  if (typeof arg === 'string') return arg;
  return (await pickCluster(model, title, filter)).name;
}

export interface JobRef {
  cluster: string;
  jobId: number;
  name?: string;
}

/** A job from a tree node argument ({cluster, jobId} too, for tests), else cluster + job picks. */
export async function jobFromArg(model: ClustersModel, arg: unknown, title: string): Promise<JobRef> {
  if (isNode(arg, 'job')) return { cluster: arg.cluster, jobId: arg.job.job_id, name: arg.job.name ?? undefined };
  if (isJobRef(arg)) return arg;
  const cluster = await pickCluster(model, title, (c) => c.status === 'UP');
  const jobs = model.jobsOf(cluster.name);
  if (jobs.length === 0) throw new Error(`${cluster.name} has no jobs`);
  const pick = await vscode.window.showQuickPick(
    jobs.map((j) => ({ label: `#${j.job_id} ${j.name ?? ''}`, description: j.status, job: j })),
    { title, ...KEEP_OPEN },
  );
  if (!pick) throw new Dismissed();
  return { cluster: cluster.name, jobId: pick.job.job_id, name: pick.job.name ?? undefined };
}

function isJobRef(v: unknown): v is JobRef {
  return !!v && typeof (v as JobRef).cluster === 'string' && typeof (v as JobRef).jobId === 'number';
}

/** The trailing options object tests and CodeLens pass to skip prompts. */
export function optionsArg<T extends object>(arg: unknown): Partial<T> {
  return arg && typeof arg === 'object' && !Array.isArray(arg) && !(arg instanceof vscode.Uri) ? (arg as Partial<T>) : {};
}
