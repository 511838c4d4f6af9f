// Task YAML editor support in a real extension host: diagnostics with exact ranges, updated
// after an edit; the Launch CodeLens; schema hovers. Runs inside VS Code (see ./index.ts).
// Needs registerTaskYamlSupport wired in src/extension.ts.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TaskCodeLensProvider } from '../../../src/ui/taskYaml/taskCodeLens';
import { log } from './log';
import { writeFile } from './workspaceFiles';

const EXTENSION_ID = 'skydeck.skydeck';
const BAD_TASK = 'run: echo hi\nresources:\n  cpus: lots\n  disk_tier: fastest\n';

function skydeckDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'skydeck');
}

/** Polls until `ok` holds for the document's skydeck diagnostics (events may come before we listen). */
async function diagnosticsWhen(uri: vscode.Uri, ok: (ds: vscode.Diagnostic[]) => boolean, ms = 10_000): Promise<vscode.Diagnostic[]> {
  const until = Date.now() + ms;
  for (;;) {
    const ds = skydeckDiagnostics(uri);
    if (ok(ds)) return ds;
    if (Date.now() > until) {
      throw new Error(`diagnostics never matched; last: ${JSON.stringify(ds.map((d) => [d.message, d.range]))}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The range of the first `needle` in the document. */
function rangeOf(doc: vscode.TextDocument, needle: string): vscode.Range {
  const i = doc.getText().indexOf(needle);
  assert.ok(i >= 0, `${needle} not in the document`);
  return new vscode.Range(doc.positionAt(i), doc.positionAt(i + needle.length));
}

describe('task YAML editor support (extension host)', () => {
  let uri: vscode.Uri;
  let doc: vscode.TextDocument;

  before(async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not loaded`);
    await ext.activate();
    uri = await writeFile('task-bad.yaml', BAD_TASK);
    doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('publishes errors on exactly the bad values, with hints', async () => {
    const t = performance.now();
    const ds = await diagnosticsWhen(uri, (d) => d.length >= 2);
    log(`      first diagnostics after ${(performance.now() - t).toFixed(0)} ms`);
    const byRange = [...ds].sort((a, b) => a.range.start.line - b.range.start.line);
    assert.equal(byRange.length, 2, JSON.stringify(byRange.map((d) => d.message)));
    assert.deepEqual(byRange[0].range, rangeOf(doc, 'lots'));
    assert.deepEqual(byRange[1].range, rangeOf(doc, 'fastest'));
    for (const d of byRange) {
      assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
      assert.equal(d.source, 'skydeck');
    }
    assert.match(byRange[1].message, /low, medium, high/);
  });

  it('re-checks after an edit (debounced) and keeps ranges exact', async () => {
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, rangeOf(doc, 'lots'), '4');
    // applyEdit itself is a slow workbench round trip under code-server (~1-2 s): time from the
    // change event, which is what the debounce starts from.
    let changedAt = 0;
    const sub = vscode.workspace.onDidChangeTextDocument((e) => { if (e.document === doc) changedAt ||= performance.now(); });
    try {
      assert.ok(await vscode.workspace.applyEdit(edit));
      const ds = await diagnosticsWhen(uri, (d) => d.length === 1);
      log(`      diagnostics updated ${(performance.now() - changedAt).toFixed(0)} ms after the edit (debounce 250 ms)`);
      assert.deepEqual(ds[0].range, rangeOf(doc, 'fastest'));
    } finally {
      sub.dispose();
    }
  });

  it('shows the Launch CodeLens at the top, for this file', async () => {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
    const launch = lenses.find((l) => l.command?.command === 'skydeck.launchTask');
    assert.ok(launch, `no Launch lens; got ${JSON.stringify(lenses.map((l) => l.command?.title))}`);
    assert.equal(launch.command?.title, '▶ Launch');
    assert.equal(launch.range.start.line, 0);
    assert.equal(String(launch.command?.arguments?.[0]), uri.toString());
  });

  it('adds one Exec lens per UP cluster, and refresh() asks for them again', async () => {
    let up = ['alpha'];
    const provider = new TaskCodeLensProvider(async () => up);
    let fired = 0;
    const sub = provider.onDidChangeCodeLenses(() => fired++);
    try {
      const first = await provider.provideCodeLenses(doc);
      assert.deepEqual(first.map((l) => l.command?.title), ['▶ Launch', '▶ Launch as Managed Job', '▶ Exec on alpha']);
      assert.equal(first[1].command?.command, 'skydeck.launchManagedJob');
      assert.deepEqual(first[1].command?.arguments, [doc.uri]);
      assert.equal(first[2].command?.command, 'skydeck.execTask');
      assert.deepEqual(first[2].command?.arguments, [doc.uri, 'alpha']);
      up = ['alpha', 'beta'];
      provider.refresh();
      assert.equal(fired, 1);
      assert.equal((await provider.provideCodeLenses(doc)).length, 4);
      // A state store that fails to open still leaves Launch.
      const broken = new TaskCodeLensProvider(() => Promise.reject(new Error('no state')));
      assert.deepEqual((await broken.provideCodeLenses(doc)).map((l) => l.command?.title), ['▶ Launch', '▶ Launch as Managed Job']);
      broken.dispose();
    } finally {
      sub.dispose();
      provider.dispose();
    }
  });

  it('hovers a key with its schema description', async () => {
    const at = rangeOf(doc, 'disk_tier').start.translate(0, 2);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, at);
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    // The path is Markdown-escaped text (disk\_tier), so allow the backslash.
    assert.match(text, /\*\*resources\.disk\\?_tier\*\*/);
    assert.match(text, /Disk performance/);
  });

  it('leaves other YAML files alone', async () => {
    const other = await writeFile('config.yaml', 'resources:\n  cpus: lots\n');
    await vscode.workspace.openTextDocument(other);
    await new Promise((r) => setTimeout(r, 600)); // longer than the debounce
    assert.deepEqual(skydeckDiagnostics(other), []);
  });
});
