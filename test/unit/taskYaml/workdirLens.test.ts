// The CodeLens on a local `workdir:` names the folder a launch from the editor uploads: relative
// paths resolve against the workspace folder (SkyPilot-style layouts: the YAML in examples/foo/).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { mountEntries } from '../../../src/ui/taskYaml/mountEntries';
import { localUploadLines } from '../../../src/core/ops';
import { parseTaskText } from '../../../src/core/task';

const ws = path.join(path.sep, 'ws', 'repo');

describe('taskYaml: the workdir CodeLens and the upload list before a launch', () => {
  it('workdir: . is the workspace folder, ./examples/foo is that folder under it', () => {
    const a = mountEntries('workdir: .\nrun: x\n', ws);
    assert.deepEqual(a.map((e) => [e.line, e.lens]), [[0, `workdir ${ws} → ~/sky_workdir`]]);
    assert.match(a[0].hover, /resolves against the workspace folder/);
    const b = mountEntries('name: t\nworkdir: ./examples/foo\nrun: x\n', ws);
    assert.deepEqual(b.map((e) => [e.line, e.lens]), [[1, `workdir ${path.join(ws, 'examples', 'foo')} → ~/sky_workdir`]]);
  });

  it('without a base (the hover path) there is no local workdir entry; a hostile path is shown escaped', () => {
    assert.deepEqual(mountEntries('workdir: .\nrun: x\n'), []);
    const e = mountEntries('workdir: "a\\u001b[31mb"\nrun: x\n', ws);
    assert.equal(e.length, 1);
    assert.doesNotMatch(e[0].lens, /\u001b/);
  });

  it('the confirmation lists the workdir and local file_mounts sources, resolved; buckets are not uploads', () => {
    const t = parseTaskText('workdir: .\nfile_mounts:\n  /data: ./data\n  /ckpt: s3://b/p\nrun: x\n').tasks[0];
    assert.deepEqual(localUploadLines(t, ws), [`workdir ${ws} → ~/sky_workdir`, `${path.join(ws, 'data')} → /data`]);
  });
});
