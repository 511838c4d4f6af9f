// One validated task document to a typed Task, with the checks the schema cannot express.

import { Reporter, formatPath } from './diagnostics';
import { Dict, isDict, setOwn } from './objects';
import { checkJobLimits } from './jobLimits';
import { envsOf, secretsOf, substituteEnvVars, substitutionValues } from './envs';
import { MOUNT_DESTINATION_HINT, mountDestinationProblem } from './mountPaths';
import { normalizeResources } from './resources';
import { warnIgnoredTaskFields } from './support';
import { FileMount, ParseOptions, Task, Workdir } from './types';


/**
 * `doc` is the document with envs/secrets coerced (what the schema checked); `raw` is the
 * document exactly as written.
 */
export function normalizeTask(doc: Dict, raw: unknown, docIndex: number, r: Reporter, opts: ParseOptions = {}): Task {
  // A field with a schema error is left out rather than guessed at. Mappings whose entries are
  // checked one by one are kept when only some entries are bad.
  const get = (key: string): unknown => {
    const perEntry = ['resources', 'file_mounts', 'envs', 'secrets'].includes(key);
    const bad = perEntry ? r.hasErrorAbove([key]) : r.hasErrorNear([key]);
    return key in doc && !bad ? doc[key] : undefined;
  };
  warnIgnoredTaskFields(r, doc);

  const task: Task = {
    numNodes: 1,
    resources: normalizeResources(get('resources'), r, ['resources']),
    envs: envsOf(get('envs'), (k) => !r.hasErrorNear(['envs', k])),
    secrets: secretsOf(get('secrets'), (k) => !r.hasErrorNear(['secrets', k])),
    fileMounts: fileMounts(get('file_mounts'), r, substitutionValues(doc, opts.env), opts.env ? [] : launchTimeNames(doc)),
    raw,
    docIndex,
  };
  const name = get('name');
  if (typeof name === 'string') task.name = name;
  const workdir = get('workdir');
  if (typeof workdir === 'string') task.workdir = workdir;
  else if (isDict(workdir) && typeof workdir.url === 'string') {
    task.workdir = (typeof workdir.ref === 'string' ? { url: workdir.url, ref: workdir.ref } : { url: workdir.url }) as Workdir;
  }
  const numNodes = get('num_nodes');
  if (typeof numNodes === 'number') task.numNodes = numNodes;
  const setup = get('setup');
  if (typeof setup === 'string') task.setup = setup;
  const run = get('run');
  if (typeof run === 'string') task.run = run;
  const config = get('config');
  if (isDict(config)) task.config = config;

  checkSecretList(get('secrets'), r);
  if (opts.env) applyEnvOverrides(task, opts.env, r);
  checkJobLimits(task, doc, r, opts.env);
  return task;
}

/** With launch-time values given, every null env must be among them. */
function applyEnvOverrides(task: Task, overrides: Record<string, string>, r: Reporter): void {
  for (const [k, v] of Object.entries(task.envs)) {
    if (v === null && !(k in overrides)) {
      r.error(['envs', k], `environment variable "${k}" has no value`,
        `pass it at launch with --env ${k}=VALUE, or write ${k}: "" for an empty value`, 'key');
    }
  }
  task.envs = { ...task.envs, ...overrides };
}

function checkSecretList(secrets: unknown, r: Reporter): void {
  if (!Array.isArray(secrets)) return;
  secrets.forEach((s, i) => {
    if (typeof s === 'string' && !s.startsWith('secrets:')) {
      r.error(['secrets', i], `${formatPath(['secrets', i])} must be a secrets:NAME reference, got ${JSON.stringify(s)}`,
        `write secrets:${s}, or use the mapping form for a value: ${s}: VALUE`);
    }
  });
}

/** envs/secrets left empty in the file: their values come at launch (`--env`). */
function launchTimeNames(doc: Dict): string[] {
  return [doc.envs, doc.secrets].flatMap((s) => (isDict(s) ? Object.keys(s).filter((k) => s[k] === null) : []));
}

/**
 * `value` has `$NAME` references filled in already, except in its keys (destinations).
 * `later`: names whose values come at launch; until then they stand for an absolute path, so
 * `$DIR/x` passes and `$DIR/../x` does not. At launch the filled-in path is checked again.
 */
function fileMounts(value: unknown, r: Reporter, vars: Record<string, string>, later: string[]): Record<string, FileMount> {
  const out: Record<string, FileMount> = {};
  if (!isDict(value)) return out;
  const forCheck: Record<string, string> = { ...vars };
  for (const k of later) if (!Object.hasOwn(forCheck, k)) setOwn(forCheck, k, '/launch-value');
  for (const [key, src] of Object.entries(value)) {
    if (r.hasErrorNear(['file_mounts', key])) continue;
    const dst = substituteEnvVars(key, vars);
    const problem = mountDestinationProblem(substituteEnvVars(key, forCheck));
    if (problem) {
      const shown = dst === key ? '' : ` (${JSON.stringify(dst)} after filling in $-references)`;
      r.error(['file_mounts', key], `the file_mounts destination ${JSON.stringify(key)}${shown} ${problem}`, MOUNT_DESTINATION_HINT, 'key');
      continue;
    }
    if (typeof src === 'string') {
      setOwn(out, dst, { kind: 'copy', source: src });
    } else if (isDict(src)) {
      if (src.source === undefined && src.name === undefined) {
        r.error(['file_mounts', key], `${formatPath(['file_mounts', key])} needs "source" or "name"`,
          'give source: a local path or bucket URL, or name: an existing bucket');
        continue;
      }
      const mount: FileMount = {
        kind: 'storage',
        mode: typeof src.mode === 'string' ? src.mode.toUpperCase() : 'MOUNT',
        persistent: src.persistent !== false,
      };
      if (typeof src.name === 'string') mount.name = src.name;
      if (typeof src.source === 'string' || Array.isArray(src.source)) mount.source = src.source as string | string[];
      if (typeof src.store === 'string') mount.store = src.store.toUpperCase();
      if (isDict(src.config)) mount.config = src.config;
      setOwn(out, dst, mount);
    }
  }
  return out;
}
