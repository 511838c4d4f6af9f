// A long-lived process (the editor; a test run whose kit was recreated on new ports) must not
// keep talking to the API server of a kubeconfig that has changed since it was read.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KubeApi } from '../../../src/core/clouds/kubernetes/api';

const kubeconfig = (port: number) => `apiVersion: v1
kind: Config
clusters:
- name: kit
  cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: "t"}
contexts:
- name: kit
  context: {cluster: kit, user: admin}
current-context: kit
`;

describe('kubernetes: the kubeconfig is read again once it changed', () => {
  it('a rewritten kubeconfig gives the new server and new clients; an unchanged one keeps both', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-kc-'));
    try {
      const file = path.join(dir, 'config');
      fs.writeFileSync(file, kubeconfig(1111));
      const api = new KubeApi({ kubeconfig: file });
      assert.equal(api.server('kit'), 'https://127.0.0.1:1111');
      const first = api.clients('kit');
      assert.equal(api.clients('kit'), first, 'unchanged: the same clients');
      // A new file in its place (as a kit restart or `kubectl config` writes it).
      fs.writeFileSync(`${file}.new`, kubeconfig(2222));
      fs.renameSync(`${file}.new`, file);
      assert.equal(api.server('kit'), 'https://127.0.0.1:2222');
      assert.notEqual(api.clients('kit'), first, 'changed: clients of the new file');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
