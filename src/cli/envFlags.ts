import * as fs from 'node:fs';
import { parseEnvFile } from '../core/task';
import { UsageError } from './args';

/** Larger env files are refused unread (an env file holds a few settings). */
const MAX_ENV_FILE_BYTES = 1 << 20;

/**
 * `--env K=V` (or `--env K` to take K from this shell's environment, as SkyPilot allows); the
 * same forms for `--secret`.
 */
export function parseEnvFlags(values: string[] | undefined, flag = '--env'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values ?? []) {
    const eq = v.indexOf('=');
    const key = eq < 0 ? v : v.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new UsageError(`${flag} ${JSON.stringify(v.slice(0, 80))}: "${key.slice(0, 80)}" is not a valid variable name`);
    let value: string;
    if (eq < 0) {
      const fromShell = process.env[key];
      if (fromShell === undefined) throw new UsageError(`${flag} ${key}: not set in this shell; write ${flag} ${key}=VALUE`);
      value = fromShell;
    } else value = v.slice(eq + 1);
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `--env-file FILE` (dotenv), read whole; `--env` values are laid over it by the caller. */
export function readEnvFile(file: string): Record<string, string> {
  let text: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) throw new UsageError(`--env-file ${file}: not a file`);
    if (st.size > MAX_ENV_FILE_BYTES) throw new UsageError(`--env-file ${file}: ${st.size} bytes; an env file may be at most ${MAX_ENV_FILE_BYTES} bytes`);
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`--env-file ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  const r = parseEnvFile(text, file);
  if (!r.ok) throw new UsageError(`--env-file ${r.error}`);
  return r.values;
}
