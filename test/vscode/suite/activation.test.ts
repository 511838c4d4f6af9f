// The extension activates in a real extension host, registers every command it contributes and
// shows its Clusters view. Runs inside VS Code (see ./index.ts).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { log } from './log';

const EXTENSION_ID = 'skydeck.skydeck';

interface Contributes {
  commands?: { command: string }[];
  views?: Record<string, { id: string }[]>;
}

describe('activation (extension host)', () => {
  let ext: vscode.Extension<unknown>;

  before(() => {
    const found = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(found, `${EXTENSION_ID} is not loaded; loaded: ${vscode.extensions.all.map((e) => e.id).filter((id) => !id.startsWith('vscode.')).join(', ')}`);
    ext = found;
  });

  it('activates, and says how long it took', async function () {
    const wasActive = ext.isActive;
    const t = performance.now();
    await ext.activate();
    const ms = performance.now() - t;
    assert.ok(ext.isActive);
    // One line a reader (or a benchmark script) can pick up.
    log(`      activation: ${wasActive ? 'already active' : `${ms.toFixed(0)} ms`}`);
    // Activation is meant to be cheap (no WASM, no SDKs); this bound is for a loaded 2-core CI box.
    if (!wasActive) assert.ok(ms < 5_000, `activation took ${ms.toFixed(0)} ms`);
  });

  it('registers every skydeck.* command from package.json', async () => {
    const contributed = ((ext.packageJSON.contributes as Contributes).commands ?? []).map((c) => c.command);
    assert.ok(contributed.length > 0, 'package.json contributes no commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => c.startsWith('skydeck.') && !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });

  it('has the Clusters view in the Skydeck container, and can focus it', async () => {
    const views = (ext.packageJSON.contributes as Contributes).views ?? {};
    assert.ok((views.skydeck ?? []).some((v) => v.id === 'skydeck.clusters'), 'skydeck.clusters is not contributed under the skydeck container');
    // The workbench makes a "<view id>.focus" command for every registered view.
    const all = await vscode.commands.getCommands(false);
    assert.ok(all.includes('skydeck.clusters.focus'), 'the workbench knows no skydeck.clusters view');
    await vscode.commands.executeCommand('skydeck.clusters.focus');
  });

  it('runs Skydeck: Refresh without an error', async () => {
    await vscode.commands.executeCommand('skydeck.refresh');
  });
});
