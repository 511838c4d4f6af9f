// Launch/exec command-line overrides (`--gpus`, `--cpus`, `--infra`, ...), meaning what they mean
// in `sky`: they replace the task's field, in the base resources and in every any_of / ordered
// candidate alike. They are written into the document as YAML fields and the document is parsed
// again, so an override is checked exactly as the same field in the file would be; its errors
// name the flag instead of a line of a file the user did not write.

import { formatDiagnostic } from './diagnostics';
import { Dict, isDict } from './objects';
import { parseTaskText } from './parse';
import { placeIn, type PlacementOverride } from './overridePlacement';
import type { Task } from './types';

/** Each value as typed on the command line; absent means "as in the task". */
export interface TaskOverrides extends PlacementOverride {
  name?: string;
  workdir?: string;
  numNodes?: string;
  gpus?: string;
  cpus?: string;
  memory?: string;
  diskSize?: string;
  instanceType?: string;
  imageId?: string;
  ports?: string[];
  useSpot?: boolean;
}

/** Which flag wrote which field (the first path segments of a diagnostic). */
const FLAG_OF: [string, string][] = [
  ['name', '--name'], ['workdir', '--workdir'], ['num_nodes', '--num-nodes'],
  ['resources.accelerators', '--gpus'], ['resources.cpus', '--cpus'], ['resources.memory', '--memory'],
  ['resources.disk_size', '--disk-size'], ['resources.instance_type', '--instance-type'], ['resources.image_id', '--image-id'],
  ['resources.ports', '--ports'], ['resources.use_spot', '--use-spot'], ['resources.infra', '--infra'],
  ['resources.region', '--region'], ['resources.zone', '--zone'],
];

const RESOURCE_KEYS: [keyof TaskOverrides, string][] = [
  ['cpus', 'cpus'], ['memory', 'memory'], ['diskSize', 'disk_size'], ['instanceType', 'instance_type'], ['imageId', 'image_id'],
];

export function hasOverrides(o: TaskOverrides): boolean {
  return Object.values(o).some((v) => v !== undefined);
}

/** A number where the text is one (as YAML would read `cpus: 4`), else the text for the checks to judge. */
function scalar(text: string): string | number {
  return /^[0-9]{1,15}(\.[0-9]{1,6})?$/.test(text.trim()) ? Number(text) : text;
}

/** The document with the overrides written in; the input is not changed. */
export function overrideDocument(raw: unknown, o: TaskOverrides): Dict {
  const doc: Dict = isDict(raw) ? structuredClone(raw) : {};
  if (o.name !== undefined) doc.name = o.name;
  if (o.workdir !== undefined) doc.workdir = o.workdir;
  if (o.numNodes !== undefined) doc.num_nodes = scalar(o.numNodes);
  const res: Dict = isDict(doc.resources) ? doc.resources : {};
  const items = ['any_of', 'ordered'].flatMap((k) => (Array.isArray(res[k]) ? (res[k] as unknown[]).filter(isDict) : []));
  // A candidate's own field would win over the base's (resources.ts mergeCandidate): drop it.
  const set = (key: string, value: unknown, alsoDrop: string[] = []) => {
    for (const it of items) for (const k of [key, ...alsoDrop]) delete it[k];
    for (const k of alsoDrop) delete res[k];
    res[key] = value;
  };
  if (o.gpus !== undefined) set('accelerators', o.gpus, ['gpus']);
  for (const [flag, key] of RESOURCE_KEYS) {
    const v = o[flag];
    if (typeof v === 'string') set(key, key === 'instance_type' || key === 'image_id' ? v : scalar(v));
  }
  if (o.ports !== undefined) set('ports', o.ports.map(scalar));
  if (o.useSpot !== undefined) set('use_spot', o.useSpot);
  placeIn(res, items, o);
  if (Object.keys(res).length) doc.resources = res;
  return doc;
}

/** The flag that set a field, for an error on it. */
function flagOf(path: string): string | undefined {
  return FLAG_OF.find(([p]) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`))?.[1];
}

export type OverrideResult = { ok: true; task: Task } | { ok: false; errors: string[] };

/**
 * Applies the overrides to a parsed task (its `raw` document) and checks the result as a task
 * file would be checked. `env` is the launch-time env values the first parse had.
 */
export function overrideTask(task: Task, o: TaskOverrides, env?: Record<string, string>): OverrideResult {
  if (!hasOverrides(o)) return { ok: true, task };
  const doc = overrideDocument(task.raw, o);
  const parsed = parseTaskText(JSON.stringify(doc), '<overrides>', env ? { env } : {});
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error').map((d) => {
    const flag = flagOf(d.path);
    return flag ? `${flag}: ${d.message}${d.hint ? ` (${d.hint})` : ''}` : formatDiagnostic(d);
  });
  if (errors.length || !parsed.tasks[0]) return { ok: false, errors: errors.length ? errors : ['the overridden task is empty'] };
  return { ok: true, task: { ...parsed.tasks[0], docIndex: task.docIndex } };
}
