// The extension activates in a real extension host, registers every command it contributes and
// shows its Clusters view. Runs inside VS Code (see ./index.ts).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { log } from './log';
import type { SkydeckApi } from '../../../src/extension';

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

  it('activates and hands the in-host tests their API', async () => {
    const api = (await ext.activate()) as SkydeckApi | undefined;
    assert.ok(ext.isActive);
    assert.ok(api?.clustersModel, 'activate() returned no clustersModel');
    assert.ok(api.testProbe, 'no test probe: is SKYDECK_TEST=1 set by the runner?');
  });

  it('loads only the UI shell: the core chunk waits for first use', function () {
    if (vscode.workspace.textDocuments.some((d) => /\.ya?ml$/.test(d.fileName))) {
      // A task file open loads the core at once, so this run cannot tell.
      log('      !!! SKIPPING "loads only the UI shell": a YAML file was already open when the suite started');
      this.skip();
    }
    const loaded = Object.keys(require.cache).filter((f) => f.endsWith(`${path.sep}extension-core.js`));
    assert.deepEqual(loaded, [], 'dist/extension-core.js was loaded by activation');
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

  it('Skydeck: Refresh loads the clusters, and ends without an error or an error notification', async () => {
    const api = ext.exports as SkydeckApi;
    const probe = api.testProbe!;
    const before = { commands: probe.commands.length, notices: probe.notices.length };
    let changed = false;
    const off = api.clustersModel.onDidChange(() => (changed = true));
    try {
      await vscode.commands.executeCommand('skydeck.refresh');
    } finally {
      off();
    }
    // The command wrapper turns a throw into a notification and returns undefined, so the
    // probe is what tells a refresh that failed from one that worked.
    assert.deepEqual(probe.commands.slice(before.commands), [{ command: 'skydeck.refresh', outcome: 'ok', message: undefined }]);
    assert.deepEqual(probe.notices.slice(before.notices).filter((n) => n.level === 'error'), []);
    assert.ok(changed, 'the Clusters model did not reload');
  });

  it('after the first command, every contributed command is still registered (now the real ones)', async () => {
    // The first call went through a stand-in, which loaded the core and made way for registerCommands.
    assert.ok(Object.keys(require.cache).some((f) => f.endsWith(`${path.sep}extension-core.js`)), 'the core chunk is loaded');
    const contributed = ((ext.packageJSON.contributes as Contributes).commands ?? []).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(contributed.filter((c) => !registered.has(c)), []);
  });
});
