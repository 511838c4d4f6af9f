// Issue 16 review: `skydeck check` says, when credential sharing is on, whether the R2 files
// SkyPilot uses (~/.cloudflare/r2.credentials, ~/.cloudflare/accountid) are there, and never
// prints a key.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { credentialSharingLine } from '../../../src/core/clouds/check';

describe('check: the credential-sharing line reports the R2 files', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'r2check-')); });
  afterEach(() => { fs.rmSync(dir, { recursive: true, force: true }); });
  const secret = 'r2-secret-value-that-must-not-print';

  it('no ~/.cloudflare: says R2 mounts will fail, names the missing file and how to make it', () => {
    const line = credentialSharingLine(true, path.join(dir, 'absent'));
    assert.match(line, /sharing is ON/);
    assert.match(line, /R2 credentials missing, so r2:\/\/ mounts will fail: .*r2\.credentials does not exist.*aws configure --profile r2/);
  });

  it('credentials without the account id file: names accountid', () => {
    fs.writeFileSync(path.join(dir, 'r2.credentials'), `[r2]\naws_access_key_id = AKR2\naws_secret_access_key = ${secret}\n`);
    const line = credentialSharingLine(true, dir);
    assert.match(line, /R2 credentials missing.*accountid does not exist/);
    assert.ok(!line.includes(secret));
  });

  it('a credentials file without the [r2] profile is reported as such', () => {
    fs.writeFileSync(path.join(dir, 'r2.credentials'), `[default]\naws_access_key_id = A\naws_secret_access_key = ${secret}\n`);
    fs.writeFileSync(path.join(dir, 'accountid'), `${'a'.repeat(32)}\n`);
    const line = credentialSharingLine(true, dir);
    assert.match(line, /has no \[r2\] profile/);
    assert.ok(!line.includes(secret));
  });

  it('both files present and well formed: "found", and no key or account id in the line', () => {
    fs.writeFileSync(path.join(dir, 'r2.credentials'), `[r2]\naws_access_key_id = AKR2ID\naws_secret_access_key = ${secret}\n`);
    fs.writeFileSync(path.join(dir, 'accountid'), `${'0123456789abcdef'.repeat(2)}\n`);
    const line = credentialSharingLine(true, dir);
    assert.match(line, /R2 credentials found/);
    for (const s of [secret, 'AKR2ID', '0123456789abcdef']) assert.ok(!line.includes(s), s);
  });

  it('sharing off: the opt-in is named and no R2 files are looked at', () => {
    const line = credentialSharingLine(false, path.join(dir, 'absent'));
    assert.match(line, /sharing is off/);
    assert.ok(!/R2 credentials/.test(line), line);
  });
});
