// A default cloud for tasks that name none (the editor's skydeck.defaultCloud). The value comes
// from a settings file the user (or a trusted workspace) wrote by hand, so the manifest's enum is
// only a hint in the Settings UI: it is checked here, and a wrong value stops the launch naming
// where it came from instead of sending the task somewhere else.
import { printable } from '../task/printable';
import { CLOUD_PROVIDERS } from './registry';

/** The cloud (lower case), undefined when unset or empty; throws naming `source` on anything else. */
export function checkDefaultCloud(value: unknown, source: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const known: readonly string[] = ['local', 'ssh', ...CLOUD_PROVIDERS];
  if (typeof value === 'string' && known.includes(value.trim().toLowerCase())) return value.trim().toLowerCase();
  const shown = typeof value === 'string' ? `"${printable(value.slice(0, 80))}"` : JSON.stringify(value)?.slice(0, 80) ?? String(value);
  throw new Error(`${source} is ${shown}, which is not a cloud Skydeck launches on: use one of ${known.join(', ')}, or leave it empty`);
}
