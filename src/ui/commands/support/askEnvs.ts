// Launch/Exec from the editor: an input box for each env and secret the task leaves empty, as the
// CLI takes them from --env / --secret. Env answers are remembered in workspaceState; secrets go
// to VS Code's SecretStorage only, and reach the node the way --secret does (the agent's stdin).
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseTaskFile } from '../../../core/task';
import { emptyValues } from '../../../core/task/emptyValues';
import type { CommandDeps } from '../command';
import { testProbe, type InputSeen } from '../../testProbe';
import { Dismissed } from './pickers';
import { applyAnswers, promptPlan, type ValuePrompt } from './valuePlan';
import { LAUNCH_ENVS_KEY, rememberedEnvs } from './rememberedEnvs';

export interface AskedValues {
  envs: Record<string, string>;
  secrets: Record<string, string>;
}

/** SecretStorage is per extension, not per workspace: the key names the workspace folder. */
export function secretKey(workspaceRoot: string, name: string): string {
  return `skydeck.secret/${createHash('sha256').update(path.resolve(workspaceRoot)).digest('hex').slice(0, 16)}/${name}`;
}

/**
 * The values for `taskFile`'s empty envs and secrets; {} when it has none (or does not parse:
 * launch reports that with positions). Escape on any box throws Dismissed before anything runs.
 * `alsoKeptBy`: who else keeps the values (said in each prompt).
 */
export async function askEnvs(ctx: Pick<CommandDeps, 'launchValues' | 'workspaceRoot'>, taskFile: string, alsoKeptBy?: string): Promise<AskedValues> {
  const parsed = await parseTaskFile(taskFile);
  if (!parsed.ok) return { envs: {}, secrets: {} };
  const empty = emptyValues(parsed.tasks);
  if (!empty.length) return { envs: {}, secrets: {} };
  const { secrets, workspaceState } = ctx.launchValues;
  const remembered = rememberedEnvs(workspaceState);
  const stored = new Set<string>();
  for (const e of empty) if (e.secret && (await secrets.get(secretKey(ctx.workspaceRoot, e.name))) !== undefined) stored.add(e.name);
  const plan = promptPlan(empty, vscode.workspace.asRelativePath(taskFile), remembered, stored, alsoKeptBy);
  const answers: string[] = [];
  for (const p of plan) {
    const a = await ask(p);
    if (a === undefined) throw new Dismissed();
    answers.push(a);
  }
  const got = await applyAnswers(plan, answers, (name) => Promise.resolve(secrets.get(secretKey(ctx.workspaceRoot, name))));
  if (Object.keys(got.remember).length) await workspaceState.update(LAUNCH_ENVS_KEY, { ...remembered, ...got.remember });
  for (const [name, value] of Object.entries(got.store)) await secrets.store(secretKey(ctx.workspaceRoot, name), value);
  return { envs: got.envs, secrets: got.secrets };
}

async function ask(p: ValuePrompt): Promise<string | undefined> {
  const box: InputSeen = { title: p.title, prompt: p.prompt, password: p.password, value: p.value };
  const probe = testProbe();
  probe?.inputs.push(box);
  if (probe?.answerInput) return probe.answerInput(box);
  return vscode.window.showInputBox({
    ...box,
    ignoreFocusOut: true,
    validateInput: (v) => (p.required && v === '' ? `${p.name} has no value in the file: type one (Escape cancels the launch)` : undefined),
  });
}
