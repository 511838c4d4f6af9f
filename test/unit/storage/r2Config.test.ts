// R2 access from SkyPilot's files: the [r2] profile of an AWS-style credentials file and the
// account id file, turned into an rclone remote whose endpoint is the account's.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { iniSection, readR2Config } from '../../../src/core/storage/r2Config';
import { rcloneRemote } from '../../../src/core/storage/rcloneRemote';

describe('storage: R2 credentials from ~/.cloudflare', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-r2-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads only the [r2] section (comments, spacing, other profiles around it)', () => {
    const text = '# mine\n[default]\naws_access_key_id=AKIDDEF\n\n[ r2 ]\n; the token\nAWS_ACCESS_KEY_ID = AKIDR2\naws_secret_access_key =s/e=cret\naws_session_token= tok\n[other]\naws_access_key_id = X\n';
    assert.deepEqual(iniSection(text, 'r2'), { aws_access_key_id: 'AKIDR2', aws_secret_access_key: 's/e=cret', aws_session_token: 'tok' });
    assert.equal(iniSection(text, 'nope'), undefined);
  });

  it('keys, session token and account id; the rclone remote gets the account endpoint, provider Cloudflare, keys secret', () => {
    fs.writeFileSync(path.join(dir, 'r2.credentials'), '[r2]\naws_access_key_id = AKIDR2\naws_secret_access_key = r2-secret\naws_session_token = tok\n');
    fs.writeFileSync(path.join(dir, 'accountid'), ` ${'0f'.repeat(16)}\n`);
    const c = readR2Config('/d: r2://b', dir);
    assert.deepEqual(c, { accessKeyId: 'AKIDR2', secretAccessKey: 'r2-secret', sessionToken: 'tok', accountId: '0f'.repeat(16) });
    const r = rcloneRemote('/d: r2://b', { store: 'r2', bucket: 'b', prefix: '' },
      { credentials: { kind: 'keys', accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey }, r2AccountId: c.accountId });
    assert.equal(r.env.RCLONE_CONFIG_SKYDECK_ENDPOINT, `https://${'0f'.repeat(16)}.r2.cloudflarestorage.com`);
    assert.equal(r.env.RCLONE_CONFIG_SKYDECK_PROVIDER, 'Cloudflare');
    assert.deepEqual(r.secret.sort(), ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);
  });

  it('a profile without both keys, a directory in place of a file, an id of the wrong shape: each refused naming the file', () => {
    fs.writeFileSync(path.join(dir, 'r2.credentials'), '[r2]\naws_access_key_id = AKIDR2\n');
    assert.throws(() => readR2Config('/d: r2://b', dir), (e: Error & { kind?: string }) => e.kind === 'no-credentials'
      && e.message.startsWith(`/d: r2://b: the [r2] profile in ${dir}/r2.credentials lacks aws_access_key_id or aws_secret_access_key`));
    fs.writeFileSync(path.join(dir, 'r2.credentials'), '[r2]\naws_access_key_id = A\naws_secret_access_key = B\n');
    fs.mkdirSync(path.join(dir, 'accountid'));
    assert.throws(() => readR2Config('/d: r2://b', dir), new RegExp(`${dir}/accountid could not be read`));
    fs.rmdirSync(path.join(dir, 'accountid'));
    fs.writeFileSync(path.join(dir, 'accountid'), 'ABCDEF'.repeat(6));
    assert.throws(() => readR2Config('/d: r2://b', dir), (e: Error & { kind?: string }) => e.kind === 'config' && /32 lowercase hex digits/.test(e.message));
  });
});
