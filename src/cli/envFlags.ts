import { UsageError } from './args';

/** `--env K=V` (or `--env K` to take K from this shell's environment, as SkyPilot allows). */
export function parseEnvFlags(values: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf('=');
    const key = eq < 0 ? v : v.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new UsageError(`--env ${v}: "${key}" is not a valid variable name`);
    if (eq < 0) {
      const fromShell = process.env[key];
      if (fromShell === undefined) throw new UsageError(`--env ${key}: not set in this shell; write --env ${key}=VALUE`);
      out[key] = fromShell;
    } else out[key] = v.slice(eq + 1);
  }
  return out;
}
