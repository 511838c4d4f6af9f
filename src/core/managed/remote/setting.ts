// Where the managed-jobs controller lives, from $SKYDECK_JOBS_CONTROLLER or `jobs.controller`
// in the user's Skydeck config (~/.skydeck/config.yaml, or $SKYDECK_CONFIG):
//   this-machine   a detached process on this machine (the default; ends when it is off)
//   local-cluster  a `local` cluster: the same machine, but a cluster like any other
//   ssh:<pool>     a host of an ssh pool, which keeps running when this machine is off
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';

export type ControllerPlace =
  | { kind: 'this-machine' }
  | { kind: 'local-cluster' }
  | { kind: 'ssh'; pool: string };

export interface ControllerSetting {
  place: ControllerPlace;
  /** Copy what job clusters need (the pools' entries, keys, host keys) to the controller. Opt-in. */
  copyCredentials: boolean;
  /** Where the value came from, for messages. */
  source: string;
}

export function defaultConfigFile(): string {
  return process.env.SKYDECK_CONFIG || path.join(os.homedir(), '.skydeck', 'config.yaml');
}

const POOL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Parses one setting value; a string is a problem naming the accepted forms. */
export function parsePlace(text: string): ControllerPlace | string {
  const v = text.trim();
  if (v === 'this-machine' || v === '') return { kind: 'this-machine' };
  if (v === 'local-cluster') return { kind: 'local-cluster' };
  const m = /^ssh:(.*)$/.exec(v);
  if (m && POOL.test(m[1])) return { kind: 'ssh', pool: m[1] };
  return `${JSON.stringify(v)} is not a controller place: use this-machine, local-cluster or ssh:<pool>`;
}

const TRUE = /^(1|true|yes)$/i;

/** Env wins over the config file; a bad value is an error (never a silent fallback). */
export function readControllerSetting(env: NodeJS.ProcessEnv = process.env, file = defaultConfigFile()): ControllerSetting {
  let fromFile: { controller?: unknown; copy_credentials?: unknown } = {};
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
  return { place, copyCredentials, source };
}
