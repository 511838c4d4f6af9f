import assert from 'node:assert/strict';
import { rcloneRemote, redact, StorageError, type StoreAccess } from '../../../src/core/storage';
import { copyArgv, mountArgv, probeArgv } from '../../../src/core/storage/rcloneArgs';

const vm: StoreAccess = { credentials: { kind: 'vm' } };
const keys: StoreAccess = { credentials: { kind: 'keys', accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 's3cr3t/with+chars', sessionToken: 'tok' } };

describe('storage/rcloneRemote: remotes from environment variables', () => {
  it('S3 with the instance profile: env_auth, provider AWS, no keys', () => {
    const r = rcloneRemote('/d: s3://b', { store: 's3', bucket: 'b', prefix: 'p/q' }, { ...vm, region: 'eu-west-1' });
    assert.deepEqual(r.env, {
      RCLONE_CONFIG_SKYDECK_TYPE: 's3', RCLONE_CONFIG_SKYDECK_PROVIDER: 'AWS', RCLONE_CONFIG_SKYDECK_NO_CHECK_BUCKET: 'true',
      RCLONE_CONFIG_SKYDECK_REGION: 'eu-west-1', RCLONE_CONFIG_SKYDECK_ENV_AUTH: 'true',
    });
    assert.deepEqual(r.secret, []);
    assert.equal(r.remotePath, 'skydeck:b/p/q');
  });

  it('S3 keys are marked secret; an endpoint switches to path-style provider Other', () => {
    const r = rcloneRemote('/d: s3://b', { store: 's3', bucket: 'b', prefix: '' }, { ...keys, endpoint: 'http://127.0.0.1:9' });
    assert.equal(r.env.RCLONE_CONFIG_SKYDECK_PROVIDER, 'Other');
    assert.equal(r.env.AWS_SECRET_ACCESS_KEY, 's3cr3t/with+chars');
    assert.deepEqual(r.secret.sort(), ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']);
    // Keys through the SDK's variables (env_auth), never in the remote's options: rclone hashes those into the cache dir's name.
    assert.equal(r.env.RCLONE_CONFIG_SKYDECK_ENV_AUTH, 'true');
    assert.ok(!Object.keys(r.env).some((k) => k.startsWith('RCLONE_CONFIG_SKYDECK_') && /KEY|TOKEN/.test(k)));
    assert.equal(r.remotePath, 'skydeck:b');
  });

  it('S3 keys without a session token clear the node\'s own AWS_SESSION_TOKEN, so it is never paired with our keys', () => {
    const r = rcloneRemote('/d: s3://b', { store: 's3', bucket: 'b', prefix: '' }, { credentials: { kind: 'keys', accessKeyId: 'AKID', secretAccessKey: 'sk' } });
    assert.equal(r.env.AWS_SESSION_TOKEN, '');
    assert.deepEqual(r.secret.sort(), ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);
    assert.equal(rcloneRemote('/d: s3://b', { store: 's3', bucket: 'b', prefix: '' }, vm).env.AWS_SESSION_TOKEN, undefined, 'the VM identity leaves the environment alone');
  });

  it('R2: provider Cloudflare at the account endpoint, keys required', () => {
    const r = rcloneRemote('/d: r2://b', { store: 'r2', bucket: 'b', prefix: '' }, { ...keys, r2AccountId: 'abc123' });
    assert.equal(r.env.RCLONE_CONFIG_SKYDECK_PROVIDER, 'Cloudflare');
    assert.equal(r.env.RCLONE_CONFIG_SKYDECK_ENDPOINT, 'https://abc123.r2.cloudflarestorage.com');
    assert.throws(() => rcloneRemote('/d: r2://b', { store: 'r2', bucket: 'b', prefix: '' }, vm),
      (e: unknown) => e instanceof StorageError && e.kind === 'config' && /^\/d: r2:\/\/b: /.test(e.message));
  });

  it('GCS with the VM service account sets no credential at all (1.60 falls back to ADC)', () => {
    const r = rcloneRemote('/d: gs://b', { store: 'gcs', bucket: 'b', prefix: '' }, vm);
    assert.deepEqual(r.env, { RCLONE_CONFIG_SKYDECK_TYPE: 'google cloud storage', RCLONE_CONFIG_SKYDECK_NO_CHECK_BUCKET: 'true' });
    const sa = rcloneRemote('/d: gs://b', { store: 'gcs', bucket: 'b', prefix: '' }, { credentials: { kind: 'gcsServiceAccount', json: '{"type":"service_account"}' } });
    assert.deepEqual(sa.secret, ['RCLONE_CONFIG_SKYDECK_SERVICE_ACCOUNT_CREDENTIALS']);
  });

  it('Azure: managed identity through use_msi (a user-assigned one named by its resource id, msi_mi_res_id), or an account key', () => {
    const t = { store: 'azure' as const, bucket: 'ctr', prefix: 'x', account: 'acct' };
    const r = rcloneRemote('/d: azure', t, { credentials: { kind: 'vm', azureMsiResourceId: '/subscriptions/s/resourceGroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities/mi' } });
    assert.equal(r.env.RCLONE_CONFIG_SKYDECK_TYPE, 'azureblob');
    assert.equal(r.env.RCLONE_CONFIG_SKYDECK_ACCOUNT, 'acct');
    assert.equal(r.env.RCLONE_CONFIG_SKYDECK_USE_MSI, 'true');
    assert.equal(r.env.RCLONE_CONFIG_SKYDECK_MSI_MI_RES_ID, '/subscriptions/s/resourceGroups/g/providers/Microsoft.ManagedIdentity/userAssignedIdentities/mi');
    assert.equal(r.remotePath, 'skydeck:ctr/x');
    const k = rcloneRemote('/d: azure', t, { credentials: { kind: 'azureKey', key: 'K3y==' } });
    assert.deepEqual(k.secret, ['RCLONE_CONFIG_SKYDECK_KEY']);
    assert.throws(() => rcloneRemote('/d: azure', { ...t, account: undefined }, vm), /no Azure storage account/);
  });

  it('Azure: a container SAS URL carries its own endpoint; an endpoint URL (not a suffix) is refused for 1.60', () => {
    const t = { store: 'azure' as const, bucket: 'ctr', prefix: '', account: 'acct' };
    const url = 'http://127.0.0.1:10000/acct/ctr?sv=2024&sig=abc';
    const r = rcloneRemote('/d: azure', t, { credentials: { kind: 'azureSas', containerUrl: url } });
    assert.deepEqual(r.env, { RCLONE_CONFIG_SKYDECK_TYPE: 'azureblob', RCLONE_CONFIG_SKYDECK_SAS_URL: url });
    assert.deepEqual(r.secret, ['RCLONE_CONFIG_SKYDECK_SAS_URL']);
    assert.equal(r.remotePath, 'skydeck:ctr');
    const key = { credentials: { kind: 'azureKey' as const, key: 'K3y==' } };
    assert.throws(() => rcloneRemote('/d: azure', t, { ...key, endpoint: 'http://127.0.0.1:10000/acct' }), /domain suffix/);
    assert.equal(rcloneRemote('/d: azure', t, { ...key, endpoint: 'blob.core.usgovcloudapi.net' }).env.RCLONE_CONFIG_SKYDECK_ENDPOINT, 'blob.core.usgovcloudapi.net');
    assert.throws(() => rcloneRemote('/d: gs://b', { store: 'gcs', bucket: 'b', prefix: '' }, { credentials: { kind: 'azureSas', containerUrl: url } }), /do not apply/);
  });

  it('Azure emulator (tests): use_emulator with the emulator URL as endpoint, no key sent; refused without the URL', () => {
    const t = { store: 'azure' as const, bucket: 'ctr', prefix: 'p', account: 'devstoreaccount1' };
    const r = rcloneRemote('/d: azure', t, { credentials: { kind: 'azureKey', key: 'K3y==' }, azureEmulator: true, endpoint: 'http://127.0.0.1:4567/devstoreaccount1' });
    assert.deepEqual(r.env, { RCLONE_CONFIG_SKYDECK_TYPE: 'azureblob', RCLONE_CONFIG_SKYDECK_USE_EMULATOR: 'true', RCLONE_CONFIG_SKYDECK_ENDPOINT: 'http://127.0.0.1:4567/devstoreaccount1' });
    assert.deepEqual([r.secret, r.remotePath], [[], 'skydeck:ctr/p']);
    assert.throws(() => rcloneRemote('/d: azure', t, { credentials: { kind: 'vm' }, azureEmulator: true }), /needs its URL as the endpoint/);
  });

  it('refuses credentials of another store and values with line breaks', () => {
    assert.throws(() => rcloneRemote('/d', { store: 'gcs', bucket: 'b', prefix: '' }, keys), /do not apply/);
    assert.throws(() => rcloneRemote('/d', { store: 's3', bucket: 'b', prefix: '' },
      { credentials: { kind: 'keys', accessKeyId: 'A', secretAccessKey: 'x\ny' } }), /line break/);
  });

  it('no secret ever reaches an argv', () => {
    const r = rcloneRemote('/d', { store: 's3', bucket: 'b', prefix: '' }, keys);
    const argvs = [probeArgv(r.remotePath), copyArgv(r.remotePath, '/d'),
      mountArgv(r.remotePath, '/d', { cached: true, cacheDir: '/c', logFile: '/l' })];
    for (const argv of argvs) for (const name of r.secret) assert.ok(!argv.some((a) => a.includes(r.env[name])), argv.join(' '));
  });

  it('redact removes every secret value', () => {
    const r = rcloneRemote('/d', { store: 's3', bucket: 'b', prefix: '' }, keys);
    assert.equal(redact('key AKIDEXAMPLE secret s3cr3t/with+chars tok!', r.env, r.secret), 'key [redacted] secret [redacted] [redacted]!');
  });
});

describe('storage/rcloneArgs', () => {
  it('MOUNT streams (cache off); MOUNT_CACHED caches fully in its own dir; both name the device', () => {
    const plain = mountArgv('skydeck:b', '/d', { cached: false, cacheDir: '/c', logFile: '/l' });
    assert.deepEqual(plain.slice(0, 6), ['rclone', 'mount', 'skydeck:b', '/d', '--devname', 'skydeck:b']);
    assert.equal(plain[plain.indexOf('--vfs-cache-mode') + 1], 'off');
    assert.ok(!plain.includes('--cache-dir') && !plain.includes('--allow-other') && !plain.includes('--daemon'));
    const cached = mountArgv('skydeck:b', '/d', { cached: true, cacheDir: '/c', logFile: '/l' });
    assert.equal(cached[cached.indexOf('--vfs-cache-mode') + 1], 'full');
    assert.equal(cached[cached.indexOf('--cache-dir') + 1], '/c');
  });

  it('every command bounds its network waits', () => {
    for (const argv of [probeArgv('skydeck:b'), copyArgv('skydeck:b', '.'), mountArgv('skydeck:b', '/d', { cached: false, cacheDir: '/c', logFile: '/l' })]) {
      assert.ok(argv.includes('--contimeout') && argv.includes('--timeout'), argv.join(' '));
    }
  });
});
