// The envs and secrets a task leaves empty (`HF_TOKEN:` or `HF_TOKEN: ""`): what Launch and Exec
// in the editor ask for before running it. The CLI takes the same values from --env / --secret.

import type { Task } from './types';

export interface EmptyValue {
  name: string;
  /** Declared under `secrets:` (in any task of a pipeline): asked as a password, never remembered in plain. */
  secret: boolean;
  /** Also declared under `envs:` with no value: the launch needs it among the envs too (task.ts applyEnvOverrides). */
  alsoEnv: boolean;
  /** null: nothing written, a value is required by the parser; '': written empty, so empty is a valid answer. */
  written: null | '';
}

// The list form (`secrets: [secrets:NAME]`) names no variable a job could get (jobLimits.ts): not asked.
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Empty entries of every task (a pipeline: the union), envs first, each name once, in file order. */
export function emptyValues(tasks: Task[]): EmptyValue[] {
  const out = new Map<string, EmptyValue>();
  const add = (name: string, v: string | null, secret: boolean) => {
    if ((v !== null && v !== '') || !NAME.test(name)) return;
    const seen = out.get(name);
    if (!seen) {
      out.set(name, { name, secret, alsoEnv: !secret && v === null, written: v as null | '' });
      return;
    }
    // The same name in envs and secrets (or in two tasks): the stricter reading wins.
    seen.secret ||= secret;
    seen.alsoEnv ||= !secret && v === null;
    if (v === null) seen.written = null;
  };
  for (const t of tasks) for (const [k, v] of Object.entries(t.envs)) add(k, v, false);
  for (const t of tasks) for (const [k, v] of Object.entries(t.secrets)) add(k, v, true);
  return [...out.values()];
}
