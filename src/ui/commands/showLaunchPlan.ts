import * as path from 'node:path';
import * as vscode from 'vscode';
import { candidateLine, planCandidates, planNotes, PriceBook, type PricedCandidate } from '../../core/cost';
import { taskPlan } from '../taskYaml/costText';
import type { Command } from './command';
import { resolveTaskFile } from './support/pickers';

/**
 * Show Launch Plan (the cost CodeLens on `resources:`): what launch picks and the cheapest
 * alternatives of the task as the editor holds it (unsaved edits included), in a quick pick;
 * the notes (sources, dates, "~") are its title and placeholder. Informs only. Argument: (uri?).
 */
export const showLaunchPlan: Command<never> = {
  id: 'skydeck.showLaunchPlan',
  async run(_ctx, arg) {
    const doc = await vscode.workspace.openTextDocument(arg instanceof vscode.Uri ? arg : await resolveTaskFile(undefined));
    const plan = taskPlan(doc.getText(), new PriceBook());
    if (!plan) throw new Error(`${path.basename(doc.fileName)} does not parse as a task: see the Problems view`);
    const item = (c: PricedCandidate) => ({
      label: `${c === plan.chosen ? '$(check) ' : ''}${c.instanceType}`,
      description: candidateLine(c).slice(c.instanceType.length + 3),
      detail: c === plan.chosen ? 'launch picks this one' : undefined,
    });
    const notes = planNotes(plan);
    void vscode.window.showQuickPick(planCandidates(plan).map(item), {
      title: `Skydeck: launch plan for ${path.basename(doc.fileName)} (${plan.nodes} node${plan.nodes === 1 ? '' : 's'})`,
      placeHolder: notes.join(' ') || 'Prices per node and for every node',
      matchOnDescription: true,
    });
    return { lines: planCandidates(plan).map(candidateLine), notes };
  },
};
