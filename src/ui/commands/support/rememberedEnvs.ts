import type * as vscode from 'vscode';

/** workspaceState key of the env answers Launch/Exec remember (askEnvs.ts); secrets are never here. */
export const LAUNCH_ENVS_KEY = 'skydeck.launchEnvs';

/** The remembered answers, name → value; {} when none or not a string map (the state is ours, but checked anyway). */
export function rememberedEnvs(state: vscode.Memento): Record<string, string> {
  const v = state.get<unknown>(LAUNCH_ENVS_KEY);
  return !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string') ? (v as Record<string, string>) : {};
}
