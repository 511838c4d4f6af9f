// Warnings for fields Skydeck accepts (because SkyPilot does) but does not act on yet.

import { Reporter, formatPath } from './diagnostics';
import { RESOURCE_FIELDS_NOT_ACTED_ON, SKYDECK_CLOUDS, TASK_FIELDS_NOT_ACTED_ON } from './names';
import { Path } from './positions';

const TASK_IGNORED: readonly string[] = TASK_FIELDS_NOT_ACTED_ON;
const RESOURCE_IGNORED: readonly string[] = RESOURCE_FIELDS_NOT_ACTED_ON;

function warnIgnored(r: Reporter, path: Path): void {
  r.warn(path, `${formatPath(path)} is not used by Skydeck yet and will be ignored`,
    'it is accepted for SkyPilot compatibility; remove it to silence this warning', 'key');
}

/** Warns about top-level fields of `doc` that Skydeck ignores. */
export function warnIgnoredTaskFields(r: Reporter, doc: Record<string, unknown>): void {
  for (const key of Object.keys(doc)) if (TASK_IGNORED.includes(key)) warnIgnored(r, [key]);
}

/** Warns about fields of one resources mapping (or candidate) at `path` that Skydeck ignores. */
export function warnIgnoredResourceFields(r: Reporter, config: Record<string, unknown>, path: Path): void {
  for (const key of Object.keys(config)) if (RESOURCE_IGNORED.includes(key)) warnIgnored(r, [...path, key]);
}

/** Warns when a task asks for a cloud Skydeck cannot launch on. */
export function warnUnsupportedCloud(r: Reporter, path: Path, cloud: string): void {
  r.warn(path, `Skydeck cannot launch on cloud "${cloud}" yet`, `supported clouds: ${SKYDECK_CLOUDS.join(', ')}`);
}
