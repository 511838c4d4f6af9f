// Editor support for task YAML files: diagnostics, Launch/Exec CodeLens, a CodeLens per file
// mount (where it comes from, what happens to it), the launch plan's CodeLens on `resources:`
// and schema hovers.

import * as vscode from 'vscode';
import { TaskCodeLensProvider } from './taskCodeLens';
import { MountCodeLensProvider } from './mountCodeLens';
import { SetupCodeLensProvider, type SetupLensSource } from './setupCodeLens';
import { CostCodeLensProvider } from './costCodeLens';
import { TaskDiagnostics } from './taskDiagnostics';
import { TaskHoverProvider } from './taskHover';
import { TASK_FILE_PATTERN } from './taskFiles';
import { rememberedEnvs } from '../commands/support/rememberedEnvs';

export { TaskCodeLensProvider } from './taskCodeLens';
export { MountCodeLensProvider } from './mountCodeLens';
export { TaskDiagnostics } from './taskDiagnostics';
export { TaskHoverProvider } from './taskHover';

// By pattern, not language: the file is a task whether or not a YAML language mode is active.
const SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', pattern: TASK_FILE_PATTERN },
  { scheme: 'vscode-remote', pattern: TASK_FILE_PATTERN },
];

/**
 * Registers the features. `clusters` lists the names of UP clusters (one Exec lens each);
 * `clustersChanged`, when given, re-asks for them (e.g. the Clusters view's onDidChangeTreeData).
 */
export function registerTaskYamlSupport(
  context: vscode.ExtensionContext,
  clusters: () => Promise<string[]>,
  clustersChanged?: vscode.Event<unknown>,
  setup?: SetupLensSource,
): vscode.Disposable[] {
  const lenses = new TaskCodeLensProvider(clusters);
  const out: vscode.Disposable[] = [
    new TaskDiagnostics(),
    lenses,
    vscode.languages.registerCodeLensProvider(SELECTOR, lenses),
    vscode.languages.registerCodeLensProvider(SELECTOR, new MountCodeLensProvider()),
    vscode.languages.registerCodeLensProvider(SELECTOR, new CostCodeLensProvider()),
    vscode.languages.registerHoverProvider(SELECTOR, new TaskHoverProvider()),
  ];
  const setupLenses = setup && new SetupCodeLensProvider(setup, () => rememberedEnvs(context.workspaceState));
  if (setupLenses) out.push(setupLenses, vscode.languages.registerCodeLensProvider(SELECTOR, setupLenses));
  if (clustersChanged) out.push(clustersChanged(() => { lenses.refresh(); setupLenses?.refresh(); }));
  return out;
}
