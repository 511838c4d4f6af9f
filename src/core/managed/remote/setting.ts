// Where the managed-jobs controller lives, from $SKYDECK_JOBS_CONTROLLER or `jobs.controller`
// in the user's Skydeck config (~/.skydeck/config.yaml, or $SKYDECK_CONFIG):
//   this-machine   a detached process on this machine (the default; ends when it is off)
//   local-cluster  a `local` cluster: the same machine, but a cluster like any other
//   ssh:<pool>     a host of an ssh pool, which keeps running when this machine is off
//   aws[/<region>] a small VM on AWS, launched on first use, with its own scoped instance
//                  profile; it stops itself once no managed job is active
//   gcp[/<region>], azure[/<region>]  the same on GCP (its own service account) or Azure (its
//                  own managed identity)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';

export type ControllerPlace =
  | { kind: 'this-machine' }
  | { kind: 'local-cluster' }
  | { kind: 'ssh'; pool: string }
  | { kind: 'cloud'; cloud: ControllerCloud; region?: string };

export type ControllerCloud = 'aws' | 'gcp' | 'azure';

/** Clouds named in a setting that have no controller cluster yet, and why. */
const NOT_YET: Record<string, string> = {
  kubernetes: 'a controller pod is not built yet',
};

export interface ControllerSetting {
  place: ControllerPlace;
  /** Copy what job clusters need (the pools' entries, keys, host keys) to the controller. Opt-in. */
  copyCredentials: boolean;
  /** Where the value came from, for messages. */
  source: string;
  /** A cloud controller cluster stops itself after this many minutes with no managed job active. */
  idleMinutes: number;
}

export const DEFAULT_CONTROLLER_IDLE_MINUTES = 10;

export function defaultConfigFile(): string {
  return process.env.SKYDECK_CONFIG || path.join(os.homedir(), '.skydeck', 'config.yaml');
}

const POOL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
/** Each cloud's region names, and one for messages. */
const REGIONS: Record<ControllerCloud, { re: RegExp; example: string; name: string }> = {
  // us-east-1, ap-southeast-2, us-gov-west-1, eu-central-2, il-central-1
  aws: { re: /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, example: 'us-east-1', name: 'an AWS' },
  // us-central1, europe-west4, northamerica-northeast2
  gcp: { re: /^[a-z]+-[a-z]+\d{1,2}$/, example: 'us-central1', name: 'a GCP' },
  // eastus, westeurope, eastus2, southcentralus
  azure: { re: /^[a-z]+\d?$/, example: 'eastus', name: 'an Azure' },
};
const FORMS = 'use this-machine, local-cluster, ssh:<pool>, aws, gcp or azure (each optionally /<region>)';

/** Parses one setting value; a string is a problem naming the accepted forms. */
export function parsePlace(text: string): ControllerPlace | string {
  const v = text.trim();
  if (v === 'this-machine' || v === '') return { kind: 'this-machine' };
  if (v === 'local-cluster') return { kind: 'local-cluster' };
  const m = /^ssh:(.*)$/.exec(v);
  if (m && POOL.test(m[1])) return { kind: 'ssh', pool: m[1] };
  const c = /^([a-z0-9]+)(?:\/([^]*))?$/.exec(v);
  if (c && NOT_YET[c[1]]) return `${JSON.stringify(v)}: a controller cluster on ${c[1]} is not available: ${NOT_YET[c[1]]}; ${FORMS}`;
  if (c && Object.hasOwn(REGIONS, c[1])) {
    const cloud = c[1] as ControllerCloud;
    const r = REGIONS[cloud];
    if (c[2] === undefined) return { kind: 'cloud', cloud };
    if (r.re.test(c[2]) && c[2].length <= 40) return { kind: 'cloud', cloud, region: c[2] };
    return `${JSON.stringify(v)}: ${JSON.stringify(c[2])} is not ${r.name} region name (such as ${r.example}); ${FORMS}`;
  }
  return `${JSON.stringify(v)} is not a controller place: ${FORMS}`;
}

const TRUE = /^(1|true|yes)$/i;

/** Env wins over the config file; a bad value is an error (never a silent fallback). */
export function readControllerSetting(env: NodeJS.ProcessEnv = process.env, file = defaultConfigFile()): ControllerSetting {
  let fromFile: { controller?: unknown; copy_credentials?: unknown; controller_idle_minutes?: unknown } = {};
  if (fs.existsSync(file)) {
    let doc: unknown;
    try {
      doc = YAML.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      throw new Error(`${file}: not valid YAML: ${(e as Error).message}`);
    }
    const jobs = doc && typeof doc === 'object' ? (doc as Record<string, unknown>).jobs : undefined;
    if (jobs !== undefined && (typeof jobs !== 'object' || jobs === null)) throw new Error(`${file}: "jobs" must be a mapping`);
    fromFile = (jobs ?? {}) as typeof fromFile;
  }
  const envValue = env.SKYDECK_JOBS_CONTROLLER;
  const raw = envValue ?? fromFile.controller;
  const source = envValue !== undefined ? 'SKYDECK_JOBS_CONTROLLER' : `${file}: jobs.controller`;
  if (raw !== undefined && typeof raw !== 'string') throw new Error(`${source}: expected a string`);
  const place = parsePlace(raw ?? 'this-machine');
  if (typeof place === 'string') throw new Error(`${source}: ${place}`);
  const envCopy = env.SKYDECK_JOBS_COPY_CREDENTIALS;
  const copyCredentials = envCopy !== undefined ? TRUE.test(envCopy) : fromFile.copy_credentials === true;
  return { place, copyCredentials, source, idleMinutes: idleMinutesOf(env.SKYDECK_JOBS_CONTROLLER_IDLE_MINUTES, fromFile.controller_idle_minutes, file) };
}

/** $SKYDECK_JOBS_CONTROLLER_IDLE_MINUTES over jobs.controller_idle_minutes: whole minutes, as every cluster's autostop. */
function idleMinutesOf(envValue: string | undefined, fileValue: unknown, file: string): number {
  const [raw, source] = envValue !== undefined ? [envValue.trim(), 'SKYDECK_JOBS_CONTROLLER_IDLE_MINUTES'] : [fileValue, `${file}: jobs.controller_idle_minutes`];
  if (raw === undefined) return DEFAULT_CONTROLLER_IDLE_MINUTES;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(Number.isInteger(n) && n >= 1 && n <= 525600)) throw new Error(`${source}: expected whole minutes from 1 to 525600 (got ${JSON.stringify(raw)})`);
  return n;
}
