// What Launch/Exec asks for a task's empty envs and secrets, and what the answers become. Pure
// (no vscode import), so the unit tests hold it; askEnvs.ts shows the boxes and keeps the answers.

import type { EmptyValue } from '../../../core/task/emptyValues';
import { printable } from '../../../core/task/printable';

export interface ValuePrompt {
  name: string;
  secret: boolean;
  alsoEnv: boolean;
  title: string;
  prompt: string;
  /** Secrets: typed as a password (the box shows dots). */
  password: boolean;
  /** Pre-filled text: an env's remembered answer; never a secret. */
  value: string;
  /** A secret with a value in SecretStorage: an empty answer uses it. */
  useStored: boolean;
  /** An empty answer is refused (nothing written in the file and nothing stored to fall back on). */
  required: boolean;
}

/** One prompt per empty entry, with the key name and the YAML file in it. */
export function promptPlan(
  empty: EmptyValue[], fileLabel: string, remembered: Record<string, string>, stored: ReadonlySet<string>, alsoKeptBy?: string,
): ValuePrompt[] {
  const file = printable(fileLabel);
  return empty.map((e, i) => {
    const step = empty.length > 1 ? ` (${i + 1}/${empty.length})` : '';
    const useStored = e.secret && stored.has(e.name);
    const prior = !e.secret && Object.hasOwn(remembered, e.name) ? remembered[e.name] : undefined;
    const left = e.written === null ? 'leaves it empty' : 'sets it to ""';
    const what = e.secret
      ? useStored
        ? 'Press Enter to use the stored value, or type a new one (kept in VS Code\'s secret storage, never in the workspace)'
        : 'Kept in VS Code\'s secret storage for next time, never in the workspace, its state or logs'
      : prior !== undefined ? 'Your last answer is filled in; remembered for this workspace' : 'Remembered for this workspace';
    return {
      name: e.name, secret: e.secret, alsoEnv: e.alsoEnv,
      title: `Skydeck: ${e.secret ? 'secret' : 'env'} ${e.name} for ${file}${step}`,
      prompt: `${file} ${left}. ${what}.${alsoKeptBy ? ` Also: ${alsoKeptBy}.` : ''}`,
      password: e.secret,
      value: prior ?? '',
      useStored,
      // An empty env is a value (`--env K=`); an empty secret typed by mistake would run the job without it.
      required: e.secret && e.written === null && !useStored,
    };
  });
}

export interface Answers {
  envs: Record<string, string>;
  secrets: Record<string, string>;
  /** Env answers to remember in workspaceState. */
  remember: Record<string, string>;
  /** Secret answers to put in SecretStorage (typed anew; a stored one that was used is not rewritten). */
  store: Record<string, string>;
}

function put(o: Record<string, string>, k: string, v: string): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/**
 * The launch's values from the answers (in plan order). `storedValue` reads a secret kept earlier;
 * it is asked only for a prompt answered empty where a stored value was offered.
 */
export async function applyAnswers(plan: ValuePrompt[], answers: string[], storedValue: (name: string) => Promise<string | undefined>): Promise<Answers> {
  const out: Answers = { envs: {}, secrets: {}, remember: {}, store: {} };
  for (const [i, p] of plan.entries()) {
    let v = answers[i];
    if (p.secret) {
      if (v === '' && p.useStored) {
        const kept = await storedValue(p.name);
        if (kept === undefined) throw new Error(`the stored value of secret ${p.name} is gone from VS Code's secret storage; launch again and type it`);
        v = kept;
      } else put(out.store, p.name, v);
      put(out.secrets, p.name, v);
      if (p.alsoEnv) put(out.envs, p.name, v);
    } else {
      put(out.envs, p.name, v);
      put(out.remember, p.name, v);
    }
  }
  return out;
}
