// The `setup:` CodeLens text follows the record launch keeps (core/ops/setupRecord.ts).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { setupLenses } from '../../../src/ui/taskYaml/setupLens';
import { setupHash, setupRecordFile, writeSetupRecord, readSetupRecord, decideSetup } from '../../../src/core/ops/setupRecord';
import { parseTaskText } from '../../../src/core/task';

describe('setup CodeLens and setup record', () => {
  const text = 'name: t\nenvs:\n  A: "1"\nsetup: pip install -r req.txt\nrun: python x.py\n';
  const task = parseTaskText(text).tasks[0];

  it('says unchanged/changed/not run per UP cluster, on the setup line', () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-setuplens-'));
    const same = { name: 'dev', uid: randomUUID() };
    const other = { name: 'old', uid: randomUUID() };
    const fresh = { name: 'new', uid: randomUUID() };
    writeSetupRecord(setupRecordFile(ws, same.uid), { hash: setupHash(task, { A: '1' }, {}), jobId: 3 });
    writeSetupRecord(setupRecordFile(ws, other.uid), { hash: setupHash(task, { A: '2' }, {}), jobId: 4 });
    const lenses = setupLenses(text, ws, [same, other, fresh]);
    assert.deepEqual(lenses, [
      { line: 3, title: 'setup unchanged on dev (job 3) → skipped at launch' },
      { line: 3, title: 'setup changed → will re-run on old' },
      { line: 3, title: 'setup will run on new (not run there from here yet)' },
    ]);
    assert.deepEqual(setupLenses('run: x\n', ws, [same]), []);
    assert.deepEqual(setupLenses(text, ws, []), []);
  });

  it('a junk, linked or oversized record counts as none (setup runs)', () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-setuprec-'));
    const f = setupRecordFile(ws, randomUUID());
    fs.mkdirSync(path.dirname(f), { recursive: true });
    for (const junk of ['{', '{"hash":"x","jobId":1}', `{"hash":"${'a'.repeat(64)}","jobId":-1}`, `{"hash":"${'a'.repeat(64)}","jobId":1,"pad":"${'x'.repeat(5000)}"}`]) {
      fs.writeFileSync(f, junk);
      assert.equal(readSetupRecord(f), undefined, junk);
    }
    const real = path.join(ws, 'elsewhere.json');
    fs.writeFileSync(real, JSON.stringify({ hash: 'a'.repeat(64), jobId: 1 }));
    fs.rmSync(f);
    fs.symlinkSync(real, f);
    assert.equal(readSetupRecord(f), undefined);
  });

  it('the node must confirm the recorded job got past setup', () => {
    const hash = setupHash(task, { A: '1' }, {});
    const rec = { hash, jobId: 2 };
    const row = (status: string) => [{ job_id: 2, status }] as never;
    assert.equal(decideSetup(task, hash, rec, row('SUCCEEDED')).run, false);
    assert.equal(decideSetup(task, hash, rec, row('FAILED')).run, false); // run failed, setup did not
    for (const s of ['FAILED_SETUP', 'SETTING_UP', 'PENDING', 'CANCELLED', 'FAILED_DRIVER']) assert.equal(decideSetup(task, hash, rec, row(s)).run, true, s);
    assert.equal(decideSetup(task, hash, rec, []).run, true, 'job gone from the node');
    assert.equal(decideSetup(task, setupHash(task, { A: '1' }, { TOKEN: 'x' }), rec, row('SUCCEEDED')).run, true, 'a new secret name');
    // Secret values do not reach the hash.
    assert.equal(setupHash(task, {}, { T: 'a' }), setupHash(task, {}, { T: 'b' }));
  });
});
