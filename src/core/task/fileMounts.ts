// `file_mounts`: destinations checked (mountPaths.ts), each source typed (bucketMounts.ts).

import type { StoreKind } from '../storage/types';
import { DefaultStore, mappingMount, stringMount } from './bucketMounts';
import { Reporter } from './diagnostics';
import { substituteEnvVars } from './envs';
import { BUCKET_DESTINATION_HINT, MOUNT_DESTINATION_HINT, bucketDestinationProblem, mountDestinationProblem } from './mountPaths';
import { isDict, setOwn } from './objects';
import { FileMount, Resources } from './types';

const CLOUD_STORE: Record<string, StoreKind> = { aws: 's3', gcp: 'gcs', azure: 'azure' };

/** The store a named bucket without `store:` goes to: the task's cloud's own, as in SkyPilot. */
export function defaultStore(res: Resources): DefaultStore {
  const candidates = res.anyOf ?? res.ordered ?? [res];
  const clouds = [...new Set(candidates.map((c) => c.cloud))];
  if (clouds.length > 1) return { why: `the task's candidates use several clouds (${clouds.map((c) => c ?? 'any').join(', ')})` };
  const cloud = clouds[0];
  if (cloud === undefined) return { why: 'the task names no cloud' };
  const store = CLOUD_STORE[cloud];
  return store ? { store } : { why: `the task's cloud "${cloud}" has no object store Skydeck uses` };
}

const REFERENCE = /\$\{?\b([a-zA-Z_][a-zA-Z0-9_]*)\b\}?/g;

/**
 * `value` has `$NAME` references filled in already, except in its keys (destinations).
 * `later`: names whose values come at launch; until then they stand for an absolute path, so
 * `$DIR/x` passes and `$DIR/../x` does not, and a bucket built from one is checked at launch.
 * At launch everything is filled in and checked again.
 */
export function fileMounts(value: unknown, r: Reporter, vars: Record<string, string>, later: string[], res: Resources): Record<string, FileMount> {
  const out: Record<string, FileMount> = {};
  if (!isDict(value)) return out;
  const forCheck: Record<string, string> = { ...vars };
  for (const k of later) if (!Object.hasOwn(forCheck, k)) setOwn(forCheck, k, '/launch-value');
  const pending = (s: string) => [...s.matchAll(REFERENCE)].some((m) => later.includes(m[1]) && !Object.hasOwn(vars, m[1]));
  const context = { r, defaultStore: defaultStore(res), pending };
  for (const [key, src] of Object.entries(value)) {
    if (r.hasErrorNear(['file_mounts', key])) continue;
    const dst = substituteEnvVars(key, vars);
    const problem = mountDestinationProblem(substituteEnvVars(key, forCheck));
    if (problem) {
      const shown = dst === key ? '' : ` (${JSON.stringify(dst)} after filling in $-references)`;
      r.error(['file_mounts', key], `the file_mounts destination ${JSON.stringify(key)}${shown} ${problem}`, MOUNT_DESTINATION_HINT, 'key');
      continue;
    }
    const path = ['file_mounts', key];
    const mount = typeof src === 'string' ? stringMount(context, path, src) : isDict(src) ? mappingMount(context, path, src) : undefined;
    const covers = mount?.kind === 'bucket' ? bucketDestinationProblem(substituteEnvVars(key, forCheck)) : undefined;
    if (covers) {
      r.error(['file_mounts', key], `the file_mounts destination ${JSON.stringify(key)} ${covers}`, BUCKET_DESTINATION_HINT, 'key');
      continue;
    }
    if (mount) setOwn(out, dst, mount);
  }
  return out;
}
