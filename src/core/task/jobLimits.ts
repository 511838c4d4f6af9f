// The agent's limits on a submitted job (agentLimits.ts), checked on the task with positions:
// a task the agent would refuse at submit must fail here, before a cluster is provisioned.

import {
  ENV_NAME, MAX_ENV_ENTRY_BYTES, MAX_ENV_TOTAL_BYTES, MAX_NAME_CHARS, MAX_SCRIPT_CHARS, codePoints, envEntryBytes,
  hasLoneSurrogate,
} from './agentLimits';
import { Reporter, formatPath } from './diagnostics';
import { Dict, isDict, setOwn } from './objects';
import { Path } from './positions';
import { Task } from './types';

const n = (x: number) => x.toLocaleString('en-US');

/** Text the agent stores and hands to processes: no lone surrogate, and (where asked) no NUL. */
function checkText(r: Reporter, path: Path, value: string, noNul: boolean): boolean {
  if (noNul && value.includes('\0')) {
    r.error(path, `${formatPath(path)} contains a NUL character (\\0), which no process environment or name can hold`, 'remove the \\0 escape');
    return false;
  }
  if (hasLoneSurrogate(value)) {
    r.error(path, `${formatPath(path)} contains a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape), which is not valid text`,
      'write the character itself, or a \\U escape of a full code point');
    return false;
  }
  return true;
}

function checkLength(r: Reporter, path: Path, value: string, limit: number, hint: string): void {
  const chars = codePoints(value);
  if (chars > limit) {
    r.error(path, `${formatPath(path)} is ${n(chars)} characters long; the agent on the node accepts at most ${n(limit)}`, hint);
  }
}

/**
 * `doc` is the document as validated (envs/secrets as strings); `overrides` are the values
 * given at launch (`--env`), which count towards the same limits.
 */
export function checkJobLimits(task: Task, doc: Dict, r: Reporter, overrides: Record<string, string> = {}): void {
  if (task.name !== undefined && checkText(r, ['name'], task.name, true)) {
    checkLength(r, ['name'], task.name, MAX_NAME_CHARS, `shorten the name to ${MAX_NAME_CHARS} characters or fewer`);
  }
  for (const key of ['setup', 'run'] as const) {
    const script = task[key];
    if (script === undefined || !checkText(r, [key], script, false)) continue;
    checkLength(r, [key], script, MAX_SCRIPT_CHARS, 'put the commands in a script file (in workdir or file_mounts) and run that file');
  }
  checkEnvs(task, doc, r, overrides);
}

/** The job's environment as launch sends it: envs, then secrets, with `--env` values applied. */
function checkEnvs(task: Task, doc: Dict, r: Reporter, overrides: Record<string, string>): void {
  const sent: Record<string, { value: string; path: Path }> = {};
  const where = (section: 'envs' | 'secrets', k: string): Path => (isDict(doc[section]) && Object.hasOwn(doc[section] as Dict, k) ? [section, k] : []);
  for (const [k, v] of Object.entries(task.envs)) {
    if (v !== null) setOwn(sent, k, { value: v, path: where('envs', k) });
  }
  // The list form (`[secrets:NAME]`) names no variable a job could get, so only the mapping form counts.
  if (isDict(doc.secrets)) {
    for (const [k, v] of Object.entries(task.secrets)) {
      if (!ENV_NAME.test(k) || k.length > MAX_NAME_CHARS) {
        r.error(['secrets', k], `"${k}" is not a valid environment variable name`,
          `use letters, digits and underscores, not starting with a digit, at most ${MAX_NAME_CHARS} characters`, 'key');
        continue;
      }
      const value = Object.hasOwn(overrides, k) ? overrides[k] : v;
      if (value !== null) setOwn(sent, k, { value, path: where('secrets', k) });
    }
  }
  let total = 0;
  for (const [k, { value, path }] of Object.entries(sent)) {
    const at: Path = path.length ? path : ['envs', k];
    const subject = path.length ? formatPath(path) : `--env ${k}`;
    if (k.length > MAX_NAME_CHARS) {
      r.error(path, `${subject}: the name is ${n(k.length)} characters long; the agent accepts at most ${n(MAX_NAME_CHARS)}`,
        'use a shorter name', 'key');
      continue;
    }
    if (path.length && !checkText(r, at, value, true)) continue;
    const size = envEntryBytes(k, value);
    total += size;
    if (size > MAX_ENV_ENTRY_BYTES) {
      r.error(path, `${subject} is too large: ${n(size)} bytes as NAME=value, and a process environment entry holds at most ${n(MAX_ENV_ENTRY_BYTES)}`,
        'put large data in a file (file_mounts) and pass its path in the variable');
    }
  }
  if (total > MAX_ENV_TOTAL_BYTES) {
    const path: Path = isDict(doc.envs) ? ['envs'] : isDict(doc.secrets) ? ['secrets'] : [];
    r.error(path, `envs and secrets are ${n(total)} bytes in total (as NAME=value); the agent on the node accepts at most ${n(MAX_ENV_TOTAL_BYTES)}`,
      'put large data in files (file_mounts) and pass their paths', 'key');
  }
}
