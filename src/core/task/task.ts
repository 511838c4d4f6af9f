// One validated task document to a typed Task, with the checks the schema cannot express.

import { Reporter, formatPath } from './diagnostics';
import { Dict, isDict } from './objects';
import { checkJobLimits } from './jobLimits';
import { envsOf, secretsOf, substitutionValues } from './envs';
import { fileMounts } from './fileMounts';
import { gitWorkdir } from './gitWorkdir';
import { normalizeResources } from './resources';
import { warnIgnoredTaskFields } from './support';
import { ParseOptions, Task } from './types';


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

  const resources = normalizeResources(get('resources'), r, ['resources']);
  const task: Task = {
    numNodes: 1,
    resources,
    envs: envsOf(get('envs'), (k) => !r.hasErrorNear(['envs', k])),
    secrets: secretsOf(get('secrets'), (k) => !r.hasErrorNear(['secrets', k])),
    fileMounts: fileMounts(get('file_mounts'), r, substitutionValues(doc, opts.env), opts.env ? [] : launchTimeNames(doc), resources),
    raw,
    docIndex,
  };
  const name = get('name');
  if (typeof name === 'string') task.name = name;
  const workdir = get('workdir');
  if (typeof workdir === 'string') task.workdir = workdir;
  else if (isDict(workdir) && typeof workdir.url === 'string') {
    const git = gitWorkdir(workdir, r);
    if (git) task.workdir = git;
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
