// --secret values and the editor's answers skip the task parser: the agent's limits on them are
// checked when the task is loaded, before a cluster is claimed, naming the variable only.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadTaskForRun } from '../../../src/core/ops/loadTask';

describe('values sent with a job (--secret, the editor\'s answers)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-sent-'));
  const file = path.join(dir, 'task.sky.yaml');
  fs.writeFileSync(file, 'run: echo\nenvs: {E: null}\nsecrets: {S: null}\n');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const load = (secret: string, env = 'e') => loadTaskForRun({ taskFile: file, envs: { E: env }, secrets: { S: secret } });

  it('ordinary values load, a secret stays out of the envs', async () => {
    const t = await load('tok "$(x)"\n');
    assert.deepEqual(t.secrets, { S: 'tok "$(x)"\n' });
    assert.deepEqual(t.envs, { E: 'e' });
  });

  it('a NUL, a lone surrogate, an entry over 128 KiB and a total over 1 MiB are refused, and the message holds no value', async () => {
    const marker = 'VALUE-MARKER';
    const cases: [string, RegExp][] = [
      [`${marker}\0x`, /secret S: the value contains a NUL character/],
      [`${marker}\ud800`, /secret S: the value contains a lone UTF-16 surrogate/],
      [marker + 'x'.repeat(128 * 1024), /secret S is too large: 131,0\d\d bytes as NAME=value/],
    ];
    for (const [v, re] of cases) {
      await assert.rejects(load(v), (e: Error) => re.test(e.message) && !e.message.includes(marker) && e.message.startsWith(file), v.slice(0, 20));
    }
    // The envs alone are within the limit (the parser lets them through); the secret tips it over.
    const big = loadTaskForRun({
      taskFile: file, envs: { E: 'e', ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`B${i}`, 'y'.repeat(120_000)])) }, secrets: { S: marker + 'z'.repeat(100_000) },
    });
    await assert.rejects(big, (e: Error) => /^\S+task\.sky\.yaml: envs and secrets are 1,060,\d+ bytes in total/.test(e.message) && !e.message.includes(marker), 'total');
  });
});
