// The Kubernetes fault proxy's own faults do what their names say: a "reset" reaches the
// client as a TCP reset at once (a TLS socket cannot be reset itself; before, such a request
// only ever hit the client's timeout, so the reset scenarios tested a timeout instead).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { KubeFaultProxy } from '../../support/kubeFaults/faultProxy';

describe('the Kubernetes fault proxy (test harness)', function () {
  this.timeout(30_000);
  let dir: string;
  let proxy: KubeFaultProxy;

  before(async () => {
    // A CA and an admin certificate shaped like the kit's pki directory; no API server is needed for a reset.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-kfp-'));
    const pki = path.join(dir, 'pki');
    fs.mkdirSync(pki);
    const ssl = (...a: string[]) => execFileSync('openssl', a, { stdio: 'ignore' });
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(pki, 'ca.key'), '-out', path.join(pki, 'ca.crt'), '-days', '1', '-subj', '/CN=test-ca');
    ssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(pki, 'admin.key'), '-out', path.join(dir, 'admin.csr'), '-subj', '/CN=admin');
    ssl('x509', '-req', '-in', path.join(dir, 'admin.csr'), '-CA', path.join(pki, 'ca.crt'), '-CAkey', path.join(pki, 'ca.key'), '-CAcreateserial', '-CAserial', path.join(dir, 'ca.srl'), '-out', path.join(pki, 'admin.crt'), '-days', '1');
    proxy = await new KubeFaultProxy(dir, 1).start();
  });
  after(async () => {
    await proxy?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a reset rule resets the connection at once (ECONNRESET, well before any timeout)', async () => {
    proxy.inject({ method: 'GET', path: /^\/api\/v1\/pods/, effect: { kind: 'reset' }, times: 1 });
    const t0 = Date.now();
    const err = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      const r = https.request(`${proxy.url}/api/v1/pods`, { ca: fs.readFileSync(path.join(dir, 'pki', 'ca.crt')), timeout: 10_000 }, () => reject(new Error('answered')));
      r.on('timeout', () => r.destroy(Object.assign(new Error('client timeout'), { code: 'TIMEOUT' })));
      r.on('error', resolve);
      r.end();
    });
    assert.equal(err.code, 'ECONNRESET', err.message);
    assert.ok(Date.now() - t0 < 3000, `reset after ${Date.now() - t0} ms`);
    assert.equal(proxy.count('GET', /pods/, 'reset'), 1);
  });
});
