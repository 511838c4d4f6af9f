// `envs` and `secrets`: SkyPilot turns scalar values into strings before validating, and a null
// value means "must be given at launch" (`--env NAME=value`).

import { Dict, setOwn } from './objects';
import { Task } from './types';

/** Scalars as SkyPilot (Python `str()`) renders them: `true` -> "True", `3` -> "3". */
function asString(v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  return v;
}

/** A copy of `section` with scalar values as strings; other shapes are left for the schema to reject. */
function coerceSection(section: unknown): unknown {
  if (Array.isArray(section)) return section.map((v) => (typeof v === 'string' ? v : asString(v)));
  if (section === null || typeof section !== 'object') return section;
  const out: Dict = {};
  for (const [k, v] of Object.entries(section as Dict)) setOwn(out, k, asString(v));
  return out;
}

// `$NAME` or `${NAME}`, as SkyPilot detects them.
const ENV_REFERENCE = /\$\{?\b([a-zA-Z_][a-zA-Z0-9_]*)\b\}?/g;

/** Replaces `$NAME` / `${NAME}` in every string of `value` (and in keys if asked) by `vars[NAME]`. */
export function substituteEnvVars<T>(value: T, vars: Record<string, string>, keys = false): T {
  const fill = (s: string) => s.replace(ENV_REFERENCE, (whole, name: string) => (Object.hasOwn(vars, name) ? vars[name] : whole));
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return fill(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v as Dict).map(([k, x]) => [keys ? fill(k) : k, walk(x)]));
    }
    return v;
  };
  return walk(value) as T;
}

/** Values that `$NAME` references resolve to: envs and inline secrets, then launch-time overrides. */
export function substitutionValues(doc: Dict, overrides: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const section of [doc.envs, doc.secrets]) {
    if (!section || typeof section !== 'object' || Array.isArray(section)) continue;
    for (const [k, v] of Object.entries(section as Dict)) if (typeof v === 'string') setOwn(out, k, v);
  }
  for (const [k, v] of Object.entries(overrides)) setOwn(out, k, v);
  return out;
}

/**
 * The document as the schema should see it, following SkyPilot's order: envs and secrets values
 * coerced to strings, then `$NAME` references filled in file_mounts, workdir, service and
 * volumes (values only, so positions still resolve). References to envs given only at launch
 * stay as written; the schema accepts them where a fixed choice is expected.
 */
export function prepareForValidation(doc: Dict, overrides: Record<string, string> = {}): Dict {
  const out = { ...doc };
  if ('envs' in out) out.envs = coerceSection(out.envs);
  if ('secrets' in out) out.secrets = coerceSection(out.secrets);
  const vars = substitutionValues(out, overrides);
  for (const key of ['file_mounts', 'workdir', 'service', 'volumes']) {
    if (key in out) out[key] = substituteEnvVars(out[key], vars);
  }
  return out;
}

/** Typed envs from a validated document. */
export function envsOf(value: unknown, keep: (key: string) => boolean = () => true): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value as Dict)) {
    if ((typeof v === 'string' || v === null) && keep(k)) setOwn(out, k, v);
  }
  return out;
}

/** Typed secrets: the list form (`[secrets:NAME]`) becomes keys with null values. */
export function secretsOf(value: unknown, keep: (key: string) => boolean = () => true): Record<string, string | null> {
  if (Array.isArray(value)) {
    return Object.fromEntries(value.filter((v): v is string => typeof v === 'string').map((v) => [v, null]));
  }
  return envsOf(value, keep);
}

/**
 * The environment a job runs with: the task's envs with `overrides` applied (overrides may add
 * new names too, as `--env` does). Names still without a value are listed in `missing`.
 */
export function resolveEnvs(task: Task, overrides: Record<string, string>): { envs: Record<string, string>; missing: string[] } {
  const envs: Record<string, string> = {};
  const missing: string[] = [];
  const merged: Record<string, string | null> = { ...task.envs, ...overrides };
  for (const [k, v] of Object.entries(merged)) {
    if (v === null || v === undefined) missing.push(k);
    else setOwn(envs, k, v);
  }
  return { envs, missing };
}
