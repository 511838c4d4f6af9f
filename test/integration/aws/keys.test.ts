// Skydeck's SSH key for AWS: OpenSSH files written with node:crypto alone must be readable by
// ssh2 (Skydeck's transport) and by OpenSSH, and are created once, private with mode 0600.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { utils, type ParsedKey } from 'ssh2';
import { generateEd25519 } from '../../../src/core/clouds/opensshKey';
import { ensureLocalKey, keyPairName } from '../../../src/core/clouds/aws/keys';
import { skipOrFailWithout } from '../../support/ci';

describe('aws: the local SSH key (no emulator needed)', () => {
  it('writes an ed25519 key that ssh2 parses, signs with, and verifies against its public half', () => {
    const k = generateEd25519('me@host');
    const parsed = utils.parseKey(k.private);
    assert.ok(!(parsed instanceof Error), String(parsed));
    const key = (Array.isArray(parsed) ? parsed[0] : parsed) as ParsedKey;
    assert.equal(key.type, 'ssh-ed25519');
    assert.equal(key.comment, 'me@host');
    assert.equal(key.getPublicSSH().toString('base64'), k.public.split(' ')[1]);
    const pub = utils.parseKey(k.public) as ParsedKey;
    const data = Buffer.from('skydeck');
    assert.ok(pub.verify(data, key.sign(data)));
  });

  it('is read by OpenSSH (ssh-keygen -y) when it is installed', function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-key-'));
    try {
      const k = ensureLocalKey(dir);
      const r = spawnSync('ssh-keygen', ['-y', '-f', k.privatePath], { encoding: 'utf8' });
      if (r.error) return skipOrFailWithout(this, `"${this.test?.title}"`, `ssh-keygen could not run (${r.error.message}); install openssh-client`);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim().split(' ').slice(0, 2).join(' '), k.publicKey.split(' ').slice(0, 2).join(' '));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is created once (0600) and names one key pair per public key', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-key-'));
    try {
      const a = ensureLocalKey(path.join(dir, 'keys'));
      const b = ensureLocalKey(path.join(dir, 'keys'));
      assert.deepEqual(a, b);
      assert.equal(fs.statSync(a.privatePath).mode & 0o777, 0o600);
      assert.match(keyPairName(a.publicKey), /^skydeck-[0-9a-f]{12}$/);
      assert.notEqual(keyPairName(a.publicKey), keyPairName(generateEd25519('x').public));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
