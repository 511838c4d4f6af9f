// Buckets in the editor, in a real extension host: the mount CodeLens on each file_mounts line
// of a task file, and the Clusters view's Storage section with Delete Bucket on its nodes.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import type { BucketNode, StorageGroupNode } from '../../../src/ui/tree/storageNodes';
import { call } from './probeCalls';

const TASK = `resources:
  cloud: aws
file_mounts:
  /data: s3://skydeck-vsc-data/p
  /ckpt:
    name: skydeck-vsc-ckpt
    mode: MOUNT
    persistent: false
run: echo hi
`;

describe('storage in the editor (extension host)', function () {
  this.timeout(60_000);
  let api: SkydeckApi;
  let uri: vscode.Uri;

  before(async () => {
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    assert.ok(api.testTree && api.testProbe, 'activate() exposes testTree and testProbe under SKYDECK_TEST=1');
    const folder = vscode.workspace.workspaceFolders![0].uri;
    uri = vscode.Uri.joinPath(folder, `task-buckets-${process.pid}.yaml`);
    await vscode.workspace.fs.writeFile(uri, Buffer.from(TASK, 'utf8'));
    // Opening a task file loads the core, which registers the lens providers.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.fs.delete(uri).then(undefined, () => undefined);
  });

  it('a CodeLens on each file_mounts line says where it comes from and what happens', async () => {
    let titles: [number, string][] = [];
    for (let i = 0; i < 100; i++) {
      const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri);
      titles = lenses.filter((l) => l.range.start.line > 0).map((l) => [l.range.start.line, l.command?.title ?? '']);
      if (titles.length >= 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(titles, [
      [3, 's3://skydeck-vsc-data/p · existing s3 bucket · COPY · never created or deleted by Skydeck'],
      [4, 's3 bucket skydeck-vsc-ckpt · MOUNT · created by Skydeck if missing · deleted at down (persistent: false)'],
    ]);
  });

  it('the hover on a bucket URL says what the mount will do', async () => {
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(3, 12));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /\*\*COPY\*\* of `s3:\/\/skydeck-vsc-data\/p` at `\/data` — objects downloaded before setup/);
  });

  it('the Storage section is hidden with no buckets and lists them once there are some', async () => {
    await api.clustersModel.reload();
    assert.equal((await api.testTree!.getChildren()).some((n) => n.kind === 'storage'), false, 'no buckets recorded: no Storage section');
    // The model is given what a listing would return (no cloud behind these names).
    api.clustersModel.storage.set([
      { store: 's3', name: 'skydeck-vsc-ckpt', status: 'READY', persistent: false, ownerCluster: 'train' },
      { store: 'gcs', name: 'skydeck-vsc-keep', status: 'READY', persistent: true },
    ]);
    const group = (await api.testTree!.getChildren()).find((n): n is StorageGroupNode => n.kind === 'storage');
    assert.ok(group, 'the Clusters view shows a Storage section');
    assert.equal(group.description, '2 · 1 deleted at down');
    const nodes = (await api.testTree!.getChildren(group)) as BucketNode[];
    assert.deepEqual(nodes.map((n) => [n.kind, n.label, n.description, n.contextValue]), [
      ['bucket', 'skydeck-vsc-ckpt', 's3 · READY · cluster train · deleted at down', 'bucket:temporary'],
      ['bucket', 'skydeck-vsc-keep', 'gcs · READY · kept after down', 'bucket:persistent'],
    ]);
    // Delete Bucket runs from the core with the node a context menu passes. These rows were
    // given to the model, not recorded in the state, so the core refuses (it deletes only
    // buckets its state records) and the bucket stays listed.
    const c = await call(api, 'skydeck.deleteBucket', nodes[0], { confirm: false });
    assert.equal(c.outcome.outcome, 'error');
    assert.match(c.outcome.message ?? '', /s3:\/\/skydeck-vsc-ckpt is not a bucket this workspace recorded/);
    assert.equal(api.clustersModel.storage.all().some((b) => b.name === 'skydeck-vsc-ckpt'), true);
    api.clustersModel.storage.set([]);
  });
});
