// `autostop:` and `job_recovery:` values (already schema-checked) to their typed forms.

import { Dict } from './objects';
import { Parsed, parseMinutes } from './quantities';
import { Autostop, JobRecovery } from './types';

export function parseAutostop(value: unknown): Parsed<Autostop> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return { ok: true, value: { enabled: value, down: false } };
  if (typeof value === 'number' || typeof value === 'string') {
    const minutes = parseMinutes(value);
    return minutes.ok ? { ok: true, value: { enabled: true, idleMinutes: minutes.value, down: false } } : minutes;
  }
  const d = value as Dict;
  const out: Autostop = { enabled: true, down: d.down === true };
  if (typeof d.idle_minutes === 'number') out.idleMinutes = d.idle_minutes;
  if (typeof d.wait_for === 'string') out.waitFor = d.wait_for.toLowerCase();
  if (typeof d.hook === 'string') out.hook = d.hook;
  if (typeof d.hook_timeout === 'number') out.hookTimeout = d.hook_timeout;
  return { ok: true, value: out };
}

export function parseJobRecovery(value: unknown): JobRecovery | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return { strategy: value };
  const d = value as Dict;
  const out: JobRecovery = {};
  if (typeof d.strategy === 'string' || d.strategy === null) out.strategy = d.strategy as string | null;
  if (typeof d.max_restarts_on_errors === 'number') out.maxRestartsOnErrors = d.max_restarts_on_errors;
  const codes = d.recover_on_exit_codes;
  if (typeof codes === 'number') out.recoverOnExitCodes = [codes];
  else if (Array.isArray(codes)) out.recoverOnExitCodes = codes.filter((c): c is number => typeof c === 'number');
  return out;
}
