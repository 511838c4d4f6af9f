// The launch plan in a real extension host: the cost CodeLens on `resources:` of a task file
// (with the shipped prices: the host's HOME is a scratch dir, so no cached catalog), its Show
// Launch Plan command, and Browse GPUs… setting `accelerators:` in an open, unsaved document.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import { assertOk, call } from './probeCalls';
import { writeFile } from './workspaceFiles';

const TASK = '# cost fixture\nname: cost\nnum_nodes: 2\n\nresources:   # the GPU box\n  cloud: aws\n  accelerators: A10G:1\n\nrun: echo hi\n';

/** The lenses of a document, asked again until `ok` holds (the core and its providers load on the first task file). */
async function lensesWhen(uri: vscode.Uri, ok: (ls: vscode.CodeLens[]) => boolean): Promise<vscode.CodeLens[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const ls = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 10);
    if (ok(ls)) return ls;
    if (Date.now() > until) throw new Error(`lenses never matched; got ${JSON.stringify(ls.map((l) => [l.range.start.line, l.command?.title]))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('cost plan in the editor (extension host)', () => {
  let api: SkydeckApi;

  before(async () => {
    const ext = vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck');
    assert.ok(ext, 'skydeck.skydeck is not loaded');
    api = await ext.activate();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('cost CodeLens on resources: shows the chosen type, per node ×2 = total; it opens the plan; Browse GPUs… beside it', async () => {
    const uri = await writeFile('task-cost.yaml', TASK);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const lenses = await lensesWhen(uri, (ls) => ls.some((l) => l.command?.command === 'skydeck.showLaunchPlan'));
    const plan = lenses.find((l) => l.command?.command === 'skydeck.showLaunchPlan')!;
    assert.equal(plan.range.start.line, 4, 'on the resources: line');
    assert.equal(plan.command?.title, '$(credit-card) g5.xlarge us-east-1 · $1.01/h ×2 = $2.01/h · cheapest of its options');
    assert.equal(String(plan.command?.arguments?.[0]), uri.toString());
    const browse = lenses.find((l) => l.command?.command === 'skydeck.browseGpus');
    assert.ok(browse, 'Browse GPUs… lens');
    assert.equal(browse.range.start.line, 4);
    // The lens's command: the same plan, line per candidate, with the prices' source.
    const shown = await call<{ lines: string[]; notes: string[] }>(api, 'skydeck.showLaunchPlan', uri);
    assertOk(shown);
    assert.match(shown.result!.lines[0], /^g5\.xlarge · aws us-east-1\* · A10G:1 · on-demand \$1\.01\/h, spot unknown per node ×2 = \$2\.01\/h$/);
    assert.ok(shown.result!.notes.some((n) => /^Prices: shipped table \(\d{4}-\d\d-\d\d\)\.$/.test(n)), shown.result!.notes.join('\n'));
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  });

  it('Browse GPUs… sets accelerators: under resources: in the open document (unsaved), keeping comments; the lens follows', async () => {
    const uri = await writeFile('task-gpus.yaml', 'name: g\n# no resources yet\nrun: echo hi\n');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const first = await call<{ accelerators: string }>(api, 'skydeck.browseGpus', uri, 'L4:1');
    assertOk(first);
    assert.equal(doc.getText(), 'name: g\n# no resources yet\nrun: echo hi\nresources:\n  accelerators: L4:1\n');
    assert.ok(doc.isDirty, 'an edit, not a save');
    // Again on the now existing block, with the active editor as the target (the palette's way).
    const again = await call<{ accelerators: string }>(api, 'skydeck.browseGpus', undefined, 'H100:8');
    assertOk(again);
    assert.equal(doc.getText(), 'name: g\n# no resources yet\nrun: echo hi\nresources:\n  accelerators: H100:8\n');
    // No cloud named: the lens prices it on every cloud and says it runs here.
    const lenses = await lensesWhen(uri, (ls) => ls.some((l) => /on a cloud from/.test(l.command?.title ?? '')));
    assert.match(lenses.find((l) => l.command?.command === 'skydeck.showLaunchPlan')!.command!.title, /no cloud named: launch runs it on this machine \(local\) · on a cloud from \$\d+\.\d\d\/h \(/);
    // A hostile choice is refused, the document untouched.
    const bad = await call(api, 'skydeck.browseGpus', uri, 'x: y\nrun: rm -rf ~:1');
    assert.equal(bad.outcome.outcome, 'error');
    assert.match(bad.outcome.message ?? '', /is not an accelerator/);
    assert.equal(doc.getText(), 'name: g\n# no resources yet\nrun: echo hi\nresources:\n  accelerators: H100:8\n');
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });
});
