import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { utils as sshUtils } from 'ssh2';
import {
  HostKeyChangedError, HostKeyRejectedError, SshPool, SshTransport, checkHostKey, fingerprint, forgetHostKey,
  hashHostName, knownHostsName, parseKnownHosts, type SshTransportOptions,
} from '../../../src/core/transport';
import type { TestHost } from '../../hosts';
import { expectReject, setup, type Env } from './helpers';

/** A different ed25519 public key, as "ssh-ed25519 AAAA…". */
function otherKey(): string {
  return sshUtils.generateKeyPairSync('ed25519').public.split(' ').slice(0, 2).join(' ');
}

function keyFingerprint(line: string): string {
  return fingerprint(Buffer.from(line.split(' ')[1], 'base64'));
}

describe('transport/ssh: host key verification', function () {
  this.timeout(60_000);
  let env: Env;
  let host: TestHost;
  let n = 0;

  before(async () => {
    env = await setup(1);
    host = env.hosts[0];
  });
  after(async () => { await env?.teardown(); });

  /** A transport on its own pool (so it connects afresh) with its own known_hosts files. */
  function fresh(extra: Partial<SshTransportOptions>): { t: SshTransport; knownHostsFile: string; userFile: string } {
    n++;
    const knownHostsFile = path.join(env.tmp, `skydeck_known_hosts_${n}`);
    const userFile = path.join(env.tmp, `user_known_hosts_${n}`);
    const t = new SshTransport(env.options(host, {
      knownHostsFile, userKnownHostsFiles: [userFile], trustOnFirstUse: false, ...extra,
    }), new SshPool());
    return { t, knownHostsFile, userFile };
  }

  it('the harness fingerprint matches ours (both in OpenSSH SHA256 form)', () => {
    assert.match(host.hostKeyFingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/);
    assert.equal(keyFingerprint(host.hostPublicKey), host.hostKeyFingerprint);
  });

  it('a changed key is refused, naming the host and both fingerprints', async () => {
    const fake = otherKey();
    const { t, knownHostsFile } = fresh({ trustOnFirstUse: true });
    fs.writeFileSync(knownHostsFile, `[${host.address}]:${host.port} ${fake}\n`);
    const e = await expectReject(t.exec(['true']), HostKeyChangedError);
    assert.equal(e.kind, 'host-key-changed');
    assert.ok(e.message.includes(`${host.address}:${host.port}`), e.message);
    assert.ok(e.message.includes(host.hostKeyFingerprint), e.message);
    assert.ok(e.message.includes(keyFingerprint(fake)), e.message);
    assert.ok(e.message.includes(knownHostsFile), e.message);
    // TOFU never overwrites a changed key.
    assert.equal(fs.readFileSync(knownHostsFile, 'utf8'), `[${host.address}]:${host.port} ${fake}\n`);
    await t.close();
  });

  it('a changed key in a hashed entry of the user known_hosts is refused too', async () => {
    const fake = otherKey();
    const { t, userFile } = fresh({ trustOnFirstUse: true });
    fs.writeFileSync(userFile, `# comment\n${hashHostName(knownHostsName(host.address, host.port))} ${fake}\n`);
    const e = await expectReject(t.exec(['true']), HostKeyChangedError);
    assert.ok(e.message.includes(keyFingerprint(fake)) && e.message.includes(host.hostKeyFingerprint));
    await t.close();
  });

  it('known keys (hashed, plain [host]:port, wildcard) connect without asking', async () => {
    const forms = [
      hashHostName(knownHostsName(host.address, host.port)),
      `[${host.address}]:${host.port}`,
      `other.example,[127.0.0.*]:${host.port}`,
    ];
    for (const form of forms) {
      const { t, userFile } = fresh({ onUnknownHostKey: async () => assert.fail(`asked although known as ${form}`) });
      fs.writeFileSync(userFile, `${form} ${host.hostPublicKey}\n`);
      assert.equal((await t.exec(['echo', 'ok'])).stdout.toString(), 'ok\n');
      await t.close();
    }
  });

  it('unknown key + callback that accepts: asked with the fingerprint, then recorded', async () => {
    const asked: Array<[string, string, string]> = [];
    const { t, knownHostsFile, userFile } = fresh({
      onUnknownHostKey: async (h, fp, type) => { asked.push([h, fp, type]); return true; },
    });
    assert.equal((await t.exec(['echo', 'hi'])).stdout.toString(), 'hi\n');
    assert.deepEqual(asked, [[`${host.address}:${host.port}`, host.hostKeyFingerprint, 'ssh-ed25519']]);
    assert.equal(fs.readFileSync(knownHostsFile, 'utf8'), `${env.knownHostsLine(host)}\n`);
    assert.equal(fs.existsSync(userFile), false, "the user's known_hosts is never written");
    await t.close();
    // A new connection with the same file does not ask again.
    const again = new SshTransport(env.options(host, {
      knownHostsFile, trustOnFirstUse: false, onUnknownHostKey: async () => assert.fail('asked twice'),
    }), new SshPool());
    await again.exec(['true']);
    await again.close();
  });

  it('unknown key + callback that rejects: refused, nothing recorded', async () => {
    let asked = 0;
    const { t, knownHostsFile } = fresh({ onUnknownHostKey: async () => { asked++; return false; } });
    const e = await expectReject(t.exec(['true']), HostKeyRejectedError);
    assert.equal(asked, 1);
    assert.ok(e.message.includes(host.hostKeyFingerprint) && e.message.includes(`${host.address}:${host.port}`), e.message);
    assert.equal(fs.existsSync(knownHostsFile), false);
    await t.close();
  });

  it('unknown key without callback or TOFU: refused', async () => {
    const { t } = fresh({});
    const e = await expectReject(t.exec(['true']), HostKeyRejectedError);
    assert.match(e.message, /not known/);
    await t.close();
  });

  it('TOFU records the key without asking', async () => {
    const { t, knownHostsFile } = fresh({ trustOnFirstUse: true, onUnknownHostKey: async () => assert.fail('asked in TOFU mode') });
    await t.exec(['true']);
    assert.equal(fs.readFileSync(knownHostsFile, 'utf8'), `${env.knownHostsLine(host)}\n`);
    assert.equal((fs.statSync(knownHostsFile).mode & 0o777).toString(8), '600');
    await t.close();
  });

  it('time spent in the callback does not count against the connect timeout', async () => {
    const { t } = fresh({
      // The answer takes well over the timeout; the timeout leaves room for a loaded machine.
      connectTimeoutMs: 2500,
      onUnknownHostKey: () => new Promise((r) => setTimeout(() => r(true), 6000)),
    });
    assert.equal((await t.exec(['echo', 'slow-ok'])).stdout.toString(), 'slow-ok\n');
    await t.close();
  });

  it('known_hosts parsing: markers, negation, port forms, forgetHostKey', async () => {
    const k = otherKey();
    const blob = Buffer.from(k.split(' ')[1], 'base64');
    const text = [
      `example.com,!bad.example.com,*.example.org ${k}`,
      `[example.net]:2222 ${k}`,
      `@revoked revoked.example ${k}`,
      '@cert-authority *.ca.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHc1v5gJ3bI9wYF7aM2E1pZ0wq2v6+u6wqXKq1mKQ2Zr',
      'garbage line',
      '',
    ].join('\n');
    const entries = parseKnownHosts(text, 'f');
    assert.equal(entries.length, 4);
    assert.equal(checkHostKey(entries, 'example.com', 22, blob).status, 'known');
    assert.equal(checkHostKey(entries, 'EXAMPLE.com', 22, blob).status, 'known');
    assert.equal(checkHostKey(entries, 'a.example.org', 22, blob).status, 'known');
    assert.equal(checkHostKey(entries, 'bad.example.com', 22, blob).status, 'unknown');
    assert.equal(checkHostKey(entries, 'example.com', 2222, blob).status, 'unknown');
    assert.equal(checkHostKey(entries, 'example.net', 2222, blob).status, 'known');
    assert.equal(checkHostKey(entries, 'example.net', 22, blob).status, 'unknown');
    assert.equal(checkHostKey(entries, 'revoked.example', 22, blob).status, 'revoked');
    const other = Buffer.from(otherKey().split(' ')[1], 'base64');
    assert.equal(checkHostKey(entries, 'example.com', 22, other).status, 'changed');
    const file = path.join(env.tmp, 'forget_known_hosts');
    fs.writeFileSync(file, `${text}\n[127.0.0.9]:22 ${k}\n`);
    assert.equal(await forgetHostKey(file, 'example.net', 2222), 1);
    assert.equal(await forgetHostKey(file, 'example.net', 2222), 0);
    assert.ok(fs.readFileSync(file, 'utf8').includes('example.com,'));
  });
});
