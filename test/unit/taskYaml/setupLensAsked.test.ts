// The `setup:` lens of a task with empty envs uses the answers Launch remembers, so it computes
// the hash launch will compute and says "unchanged" when the next launch would skip setup.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setupLenses } from '../../../src/ui/taskYaml/setupLens';
import { setupHash, setupRecordFile, writeSetupRecord } from '../../../src/core/ops/setupRecord';
import { loadTaskForRun } from '../../../src/core/ops/loadTask';

describe('setup CodeLens with envs asked at launch', () => {
  it('the remembered answers make the lens hash equal the one launch records', async () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-setupasked-'));
    const text = 'name: t\nenvs:\n  REGION:\n  TAG: ""\n  SET: v\nsecrets:\n  TOKEN:\nsetup: echo $REGION\nrun: x\n';
    const file = path.join(ws, 't.sky.yaml');
    fs.writeFileSync(file, text);
    // What Launch sends after the boxes: REGION answered, TAG left as offered, the secret typed.
    const loaded = await loadTaskForRun({ taskFile: file, envs: { REGION: 'eu', TAG: '' }, secrets: { TOKEN: 'tok' } });
    const c = { name: 'dev', uid: randomUUID() };
    writeSetupRecord(setupRecordFile(ws, c.uid), { hash: setupHash(loaded.task, loaded.envs, loaded.secrets), jobId: 1 });
    assert.deepEqual(setupLenses(text, ws, [c], { REGION: 'eu', UNRELATED: 'z' }).map((l) => l.title), ['setup unchanged on dev (job 1) → skipped at launch']);
    assert.deepEqual(setupLenses(text, ws, [c], { REGION: 'us' }).map((l) => l.title), ['setup changed → will re-run on dev']);
    assert.deepEqual(setupLenses(text, ws, [c]).map((l) => l.title), ['setup changed → will re-run on dev'], 'nothing remembered: REGION is not known');
    fs.rmSync(ws, { recursive: true, force: true });
  });
});
