import * as path from 'node:path';
import * as vscode from 'vscode';
import { defaultCatalogDir } from '../../core/catalog';
import { gpuChoices, gpuOffers, PriceBook, SHIPPED_SPOT_NOTE } from '../../core/cost';
import { acceleratorsEdit, acceleratorValue } from '../taskYaml/acceleratorEdit';
import type { Command } from './command';
import { Dismissed, resolveTaskFile } from './support/pickers';

/**
 * Browse GPUs…: the catalog's accelerators (each cloud's cheapest on-demand and spot $/h) in a
 * quick pick; the pick becomes `accelerators: NAME:N` under `resources:` of the task YAML, as
 * one WorkspaceEdit (acceleratorEdit.ts), left unsaved like any edit. Arguments: (uri?, choice?)
 * where choice is "NAME:N" (the CodeLens passes the uri; a caller may pass both, no prompt).
 */
export const browseGpus: Command<never> = {
  id: 'skydeck.browseGpus',
  async run(_ctx, arg, choiceArg) {
    const doc = await targetDocument(arg);
    const value = typeof choiceArg === 'string' ? checkedChoice(choiceArg) : await pickGpu(path.basename(doc.fileName));
    const r = acceleratorsEdit(doc.getText(), value);
    if (!r.ok) throw new Error(`${path.basename(doc.fileName)}: ${r.why}`);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(r.edit.start), doc.positionAt(r.edit.end)), r.edit.text);
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`${path.basename(doc.fileName)} could not be edited`);
    const editor = await vscode.window.showTextDocument(doc);
    const at = doc.positionAt(r.edit.start + r.edit.text.indexOf(value));
    editor.revealRange(new vscode.Range(at, at));
    return { uri: doc.uri.toString(), accelerators: value };
  },
};

/** The given task YAML (not saved: the edit goes into what the user sees), else the active YAML, else a pick. */
async function targetDocument(arg: unknown): Promise<vscode.TextDocument> {
  if (arg instanceof vscode.Uri) return vscode.workspace.openTextDocument(arg);
  const active = vscode.window.activeTextEditor?.document;
  if (active && (active.languageId === 'yaml' || /\.ya?ml$/i.test(active.fileName))) return active;
  return vscode.workspace.openTextDocument(await resolveTaskFile(undefined));
}

function checkedChoice(s: string): string {
  const m = /^([^:]+):([0-9.]+)$/.exec(s);
  const value = m ? acceleratorValue(m[1], Number(m[2])) : undefined;
  if (!value) throw new Error(`${JSON.stringify(s.slice(0, 80))} is not an accelerator (NAME:COUNT)`);
  return value;
}

async function pickGpu(file: string): Promise<string> {
  const dir = defaultCatalogDir();
  const choices = gpuChoices(gpuOffers({}, new PriceBook(dir), dir));
  const marked = choices.some((c) => c.spot.includes('~'));
  const pick = await vscode.window.showQuickPick(
    choices.map((c) => ({
      label: c.value,
      description: c.onDemand,
      detail: `${c.memoryGb ? `${c.memoryGb} GB each · ` : ''}${c.spot}`,
      value: c.value,
    })),
    {
      title: `Skydeck: accelerators for ${file} (cheapest $/h per node and cloud)`,
      placeHolder: marked ? `Type to filter (A100, H100:8…). ${SHIPPED_SPOT_NOTE}` : 'Type to filter (A100, H100:8…)',
      matchOnDescription: true,
      matchOnDetail: true,
    },
  );
  if (!pick) throw new Dismissed();
  return pick.value;
}
