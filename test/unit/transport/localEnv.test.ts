import { cleanupBase } from '../agent/helpers';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Connections } from '../../../src/core/ops/connections';
import { localBaseDir } from '../../../src/core/ops/context';
import { thisCreator } from '../../../src/core/state';
import type { ClusterRecord } from '../../../src/core/state';

// Issue 13.3: the agent of a `local` cluster saves its client's environment for the jobs
// (env.json, in the workspace). The client is the editor: its credentials must not go there.
describe('issue 13.3: a local cluster gets a login-like environment, not the editor\'s', () => {
  it('issue 13.3: cloud credentials in the editor\'s environment reach neither the agent nor env.json', async function () {
    this.timeout(30_000);
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-localenv-'));
    const base = localBaseDir(root, 'c1');
    const saved = { ...process.env };
    process.env.AWS_SECRET_ACCESS_KEY = 'editor-secret-13.3';
    process.env.GITHUB_TOKEN = 'ghp-editor-token-13.3';
    const conns = new Connections({ knownHostsFile: path.join(root, 'known_hosts'), workspaceRoot: root });
    try {
      const creator = thisCreator();
      const row = { name: 'c1', uid: randomUUID(), provider: 'local', created_by_user: creator.user, created_by_machine: creator.machine, handle: JSON.stringify({ hosts: [], base, workdir: root, local: true }) } as unknown as ClusterRecord;
      const t = conns.transportForCluster(row);
      const env = (await t.exec(['/usr/bin/env'])).stdout.toString();
      assert.doesNotMatch(env, /AWS_SECRET_ACCESS_KEY|GITHUB_TOKEN/);
      assert.match(env, /^HOME=/m);
      assert.match(env, /^PATH=/m);
      const client = conns.client(row);
      const { job_id } = await client.submit({ run: 'true' });
      assert.equal(typeof job_id, 'number');
      const envJson = fs.readFileSync(path.join(base, 'env.json'), 'utf8');
      assert.doesNotMatch(envJson, /editor-secret|ghp-editor/);
      await client.followLogs(job_id, () => undefined);
      await client.shutdown(); // its daemon goes with it
      assert.equal(fs.statSync(path.join(base, 'env.json')).mode & 0o777, 0o600);
    } finally {
      process.env = saved;
      await conns.closeAll();
      // shutdown() answers before its daemon has exited: end whatever still writes under the base.
      await cleanupBase(root);
      fs.rmSync(root, { recursive: true, force: true, maxRetries: 10 });
    }
  });
});
