// Issue 20 in a real extension host: the per-user index of live clusters. Another folder's entry
// (as that folder's own window writes it) makes the Clusters view show "N clusters in other
// folders still billing $X/h", with the folder to open; that folder's state file is never touched.
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SkydeckApi } from '../../../src/extension';
import { indexDir, skydeckHome } from '../../../src/core/cost';
import type { OtherFolderNode, OtherFoldersNode } from '../../../src/ui/tree/otherFoldersNode';

function sha(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

describe('issue 20: clusters in other folders (extension host, per-user index)', function () {
  this.timeout(60_000);
  let api: SkydeckApi;

  before(async () => {
    api = (await vscode.extensions.getExtension<SkydeckApi>('skydeck.skydeck')!.activate())!;
    assert.ok(api.testTree, 'activate() exposes testTree under SKYDECK_TEST=1');
  });

  it('another folder\'s index entry shows as "N clusters in other folders still billing $X/h"; its state file is never written', async () => {
    await api.clustersModel.reload();
    assert.ok(!(await api.testTree!.getChildren()).some((n) => n.kind === 'other-folders'), 'another folder already bills here: the figures below would include it');
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-other-folder-'));
    const state = path.join(other, '.skydeck', 'state.db');
    fs.mkdirSync(path.dirname(state));
    fs.writeFileSync(state, crypto.randomBytes(4096));
    const before = { hash: sha(state), mtime: fs.statSync(state).mtimeMs };
    const id = crypto.randomBytes(8).toString('hex');
    const file = path.join(indexDir(skydeckHome()), `${id}.json`);
    const cluster = (name: string, usdPerHour: number) => ({ name, uid: crypto.randomUUID(), provider: 'aws', region: 'us-east-1', status: 'UP', usdPerHour, autostopMinutes: null });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ version: 1, workspaceId: id, folder: other, updatedAt: Date.now(), clusters: [cluster('far-a', 1.5), cluster('far-b', 2.62)] }));
    try {
      await api.clustersModel.reload();
      const node = (await api.testTree!.getChildren()).find((n): n is OtherFoldersNode => n.kind === 'other-folders');
      assert.ok(node, 'no "other folders" node in the Clusters view');
      assert.equal(node.label, '2 clusters in other folders still billing $4.12/h');
      const kids = (await api.testTree!.getChildren(node)) as OtherFolderNode[];
      assert.deepEqual(kids.map((k) => [k.kind, k.folder, k.description]), [['other-folder', other, '2 cluster(s) · $4.12/h']]);
      assert.equal(kids[0].command?.command, 'vscode.openFolder');
      assert.equal((kids[0].command?.arguments?.[0] as vscode.Uri).fsPath, other);
      assert.deepEqual({ hash: sha(state), mtime: fs.statSync(state).mtimeMs }, before, 'the other folder\'s state file was written');
      assert.deepEqual(fs.readdirSync(path.join(other, '.skydeck')), ['state.db'], 'something was created next to the other folder\'s state');
    } finally {
      fs.rmSync(file, { force: true });
      fs.rmSync(other, { recursive: true, force: true });
    }
    await api.clustersModel.reload();
    assert.ok(!(await api.testTree!.getChildren()).some((n) => n.kind === 'other-folders'), 'the node stays after the entry is gone');
  });
});
