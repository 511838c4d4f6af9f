// `resources:` (already schema-checked) to a typed Resources, with the checks a schema cannot
// express: value forms, conflicting fields, and any_of / ordered candidates merged with their base.

import { parseAccelerators } from './accelerators';
import { parseAutostop, parseJobRecovery } from './autostop';
import { Reporter, formatPath } from './diagnostics';
import { isSkydeckCloud, parseInfra } from './infra';
import { Dict, isDict } from './objects';
import { Path } from './positions';
import { parsePorts } from './ports';
import { Parsed, parseCpus, parseDiskSize, parseMemory } from './quantities';
import { warnIgnoredResourceFields, warnUnsupportedCloud } from './support';
import { Autostop, Resources } from './types';

export function emptyResources(): Resources {
  return { accelerators: [], acceleratorsOrdered: false, useSpot: false, ports: [], labels: {} };
}

/** Where each field of a (possibly merged) config came from, for positions and de-duplication. */
interface Origin {
  /** Path of `key` in the source text. */
  pathOf(key: string): Path;
  /** False for fields inherited from the base of a candidate: those were checked already. */
  owns(key: string): boolean;
}

export function normalizeResources(raw: unknown, r: Reporter, path: Path): Resources {
  if (!isDict(raw)) return emptyResources();
  checkOwnFields(raw, r, path);
  const base = { ...raw };
  delete base.any_of;
  delete base.ordered;
  const out = single(base, r, { pathOf: (k) => [...path, k], owns: () => true });
  for (const listKey of ['any_of', 'ordered'] as const) {
    const list = raw[listKey];
    if (!Array.isArray(list) || list.length === 0) continue;
    out[listKey === 'any_of' ? 'anyOf' : 'ordered'] = list.map((item, i) => {
      const itemPath = [...path, listKey, i];
      if (!isDict(item)) return single(base, r, { pathOf: (k) => [...path, k], owns: () => false });
      checkOwnFields(item, r, itemPath);
      return single(mergeCandidate(base, item), r, {
        pathOf: (k) => (Object.hasOwn(item, k) ? [...itemPath, k] : [...path, k]),
        owns: (k) => Object.hasOwn(item, k),
      });
    });
  }
  return out;
}

/** A candidate overrides its base; labels are merged; `gpus` and `accelerators` replace each other. */
function mergeCandidate(base: Dict, item: Dict): Dict {
  const replaced = new Set<string>();
  if ('gpus' in item || 'accelerators' in item) ['gpus', 'accelerators'].forEach((k) => replaced.add(k));
  if ('infra' in item) ['cloud', 'region', 'zone'].forEach((k) => replaced.add(k));
  // Spreads define own properties, so a `__proto__` key cannot change the prototype.
  const kept = Object.fromEntries(Object.entries(base).filter(([k]) => !replaced.has(k)));
  const merged: Dict = { ...kept, ...item };
  if (isDict(base.labels) && isDict(item.labels)) merged.labels = { ...base.labels, ...item.labels };
  return merged;
}

/** Checks that concern one mapping as written (not merged). */
function checkOwnFields(config: Dict, r: Reporter, path: Path): void {
  const where = formatPath(path);
  if ('gpus' in config && 'accelerators' in config) {
    r.error([...path, 'gpus'], `${where} sets both "gpus" and "accelerators"`, 'gpus is another name for accelerators; keep one', 'key');
  }
  if ('job_recovery' in config && 'spot_recovery' in config) {
    r.error([...path, 'spot_recovery'], `${where} sets both "job_recovery" and "spot_recovery"`, 'spot_recovery is the old name of job_recovery; keep job_recovery', 'key');
  } else if ('spot_recovery' in config) {
    r.warn([...path, 'spot_recovery'], `${formatPath([...path, 'spot_recovery'])} is deprecated`, 'rename it to job_recovery', 'key');
  }
  if ('any_of' in config && 'ordered' in config) {
    r.error([...path, 'ordered'], `${where} cannot have both "any_of" and "ordered"`,
      'use any_of when any candidate will do, or ordered for a preference order', 'key');
  }
  const acc = config.accelerators ?? config.gpus;
  const accKey = 'accelerators' in config ? 'accelerators' : 'gpus';
  const count = Array.isArray(acc) ? acc.length : isDict(acc) ? Object.keys(acc).length : 0;
  if (count > 1 && Array.isArray(config.ordered)) {
    r.error([...path, accKey], `${where} cannot list several accelerators together with "ordered"`,
      'move each accelerator into its own ordered candidate');
  } else if (count > 1 && Array.isArray(acc) && Array.isArray(config.any_of)) {
    r.error([...path, accKey], `${where} cannot list accelerators in preference order together with "any_of"`,
      'use a set such as {V100, A100}, or move each accelerator into its own any_of candidate');
  }
  warnIgnoredResourceFields(r, config, path);
}

function single(config: Dict, r: Reporter, origin: Origin): Resources {
  const out = emptyResources();
  /** The field's value if it is present and has no schema error; problems are reported only where owned. */
  const field = (key: string): unknown => (key in config && !r.hasErrorNear(origin.pathOf(key)) ? config[key] : undefined);
  const problem = (key: string, sub: Path, p: { problem: string; hint: string }) => {
    if (!origin.owns(key)) return;
    const at = [...origin.pathOf(key), ...sub];
    r.error(at, `${formatPath(at)} ${p.problem}`, p.hint);
  };
  const take = <T>(key: string, parse: (v: unknown) => Parsed<T>): T | undefined => {
    const v = field(key);
    if (v === undefined || v === null) return undefined;
    const parsed = parse(v);
    if (parsed.ok) return parsed.value;
    problem(key, [], parsed);
    return undefined;
  };

  placement(config, r, origin, out);
  out.cpus = take('cpus', parseCpus);
  out.memory = take('memory', parseMemory);
  const accKey = 'accelerators' in config ? 'accelerators' : 'gpus';
  const acc = field(accKey);
  if (acc !== undefined && acc !== null) {
    const parsed = parseAccelerators(acc);
    out.accelerators = parsed.options;
    out.acceleratorsOrdered = parsed.ordered && parsed.options.length > 1;
    for (const p of parsed.problems) problem(accKey, p.at === undefined ? [] : [p.at], p);
  }
  const instanceType = field('instance_type');
  if (typeof instanceType === 'string') out.instanceType = instanceType;
  out.useSpot = field('use_spot') === true;
  const recovery = parseJobRecovery(field('job_recovery') ?? field('spot_recovery'));
  if (recovery) out.jobRecovery = recovery;
  out.diskSize = take('disk_size', parseDiskSize);
  const tier = field('disk_tier');
  if (typeof tier === 'string') out.diskTier = tier.toLowerCase();
  const ports = parsePorts(field('ports'));
  out.ports = ports.ports;
  for (const p of ports.problems) problem('ports', p.at === undefined ? [] : [p.at], p);
  const image = field('image_id');
  if (typeof image === 'string' || isDict(image)) out.imageId = image as Resources['imageId'];
  const labels = field('labels');
  if (isDict(labels)) out.labels = { ...(labels as Record<string, string>) };
  out.autostop = take('autostop', (v) => parseAutostop(v) as Parsed<Autostop>);
  // Drop keys left undefined so results compare cleanly.
  for (const k of Object.keys(out) as (keyof Resources)[]) if (out[k] === undefined) delete out[k];
  return out;
}

/** cloud / region / zone, or infra (which may not be combined with them). */
function placement(config: Dict, r: Reporter, origin: Origin, out: Resources): void {
  const get = (k: string) => (k in config && !r.hasErrorNear(origin.pathOf(k)) ? config[k] : undefined);
  const infra = get('infra');
  if (typeof infra === 'string') {
    const clash = ['cloud', 'region', 'zone'].filter((k) => k in config);
    if (clash.length > 0) {
      const key = origin.owns('infra') ? 'infra' : clash.find((k) => origin.owns(k));
      if (key) {
        const at = origin.pathOf(key);
        const others = key === 'infra' ? clash : ['infra'];
        r.error(at, `${formatPath(at)} cannot be combined with ${others.map((k) => `"${k}"`).join(', ')}`,
          'put everything in infra, e.g. infra: aws/us-east-1/us-east-1a', 'key');
      }
    }
    out.infra = infra;
    Object.assign(out, parseInfra(infra));
    if (out.cloud && !isSkydeckCloud(out.cloud) && origin.owns('infra')) warnUnsupportedCloud(r, origin.pathOf('infra'), out.cloud);
    return;
  }
  const cloud = get('cloud');
  if (typeof cloud === 'string') {
    out.cloud = cloud.toLowerCase();
    if (!isSkydeckCloud(cloud) && origin.owns('cloud')) warnUnsupportedCloud(r, origin.pathOf('cloud'), out.cloud);
  }
  const region = get('region');
  if (typeof region === 'string') out.region = region;
  const zone = get('zone');
  if (typeof zone === 'string') out.zone = zone;
}
