// Issue 16 review, against real rclone on a real sshd host (FUSE, moto S3): the R2 marker object
// is hidden from jobs, keys never show on a command line or in a file on the node, shell words in
// a prefix stay data, and a kill -9 of rclone (mount or copy) is recovered by the next attempt.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import { copyFromBucket, mountAt, mountBucket, unmountBucket, type NodeMount } from '../../../src/core/storage';
import { BUCKET_MARKER } from '../../../src/core/storage/marker';
import { requireStorageTools, startStorageEnv, type StorageEnv } from './env';
import { startHoldingProxy, type HoldingProxy } from './holdingProxy';

/** PUT with the key's ".." kept (fetch's URL parser would resolve it away). */
function rawPut(url: string, bucket: string, key: string, body: Buffer): Promise<void> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: u.hostname, port: u.port, method: 'PUT', path: `/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
      headers: { 'content-length': body.length, Authorization: 'AWS4-HMAC-SHA256 Credential=AKIDSKYDECKTEST/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0' },
    }, (res) => { res.resume(); res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`PUT ${key}: ${res.statusCode}`)))); });
    req.on('error', reject);
    req.end(body);
  });
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('storage: hostile data and crashes on a test host (issue 16 review)', function () {
  this.timeout(180_000);
  let env: StorageEnv;
  let proxy: HoldingProxy;
  const big = randomBytes(3 * 1024 * 1024 + 5);
  const odd = "$(touch${IFS}/tmp/pwned-atk16b)/`touch${IFS}/tmp/pwned-atk16b`/'q'";
  // A distinctive secret: looked for in argv, logs and files on the node.
  const keys = { accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: `atk16b-secret-${randomBytes(8).toString('hex')}` };

  before(async function () {
    requireStorageTools(this);
    env = await startStorageEnv();
    proxy = await startHoldingProxy(env.moto.url);
    await env.s3.createBucket('marked');
    await env.s3.put('marked', BUCKET_MARKER, Buffer.from('{"skydeck-uid":"x"}'));
    await env.s3.put('marked', 'data/a.txt', Buffer.from('a\n'));
    await env.s3.put('marked', 'big.bin', big);
    await env.s3.put('marked', `${odd}/f.txt`, Buffer.from('odd\n'));
  });
  after(async () => {
    await proxy?.close();
    await env?.teardown();
  });

  const sh = async (cmd: string): Promise<string> => {
    const r = await env.hosts.hosts[0].exec(cmd);
    assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
    return r.stdout;
  };
  const target = (prefix = '') => ({ store: 's3' as const, bucket: 'marked', prefix });

  it('COPY of a bucket root does not bring the marker object; the job\'s files all arrive', async () => {
    await copyFromBucket(env.context(), { dst: '~/copied', mode: 'COPY', target: target() });
    const files = (await sh('cd ~/copied && find . -type f | sort')).split('\n').filter(Boolean);
    assert.ok(files.includes('./data/a.txt') && files.includes('./big.bin'), files.join(' '));
    assert.ok(!files.some((f) => f.includes(BUCKET_MARKER)), files.join(' '));
  });

  it('MOUNT of a bucket root hides the marker from listings and reads; keys are in no argv, log or node file', async () => {
    // The keys are fresh for this run, so only a file written from here on can hold them (its
    // status-change time, which no one can set back, is after this).
    const since = Number(await sh('date +%s')) - 2; // a margin for coarse file times
    const h = await mountBucket(env.context({ keys }), { dst: '~/mounted', mode: 'MOUNT', target: target() });
    try {
      const ls = await sh('ls -A ~/mounted');
      assert.ok(ls.includes('data') && !ls.includes(BUCKET_MARKER), ls);
      assert.notEqual((await env.hosts.hosts[0].exec(`cat ~/mounted/${BUCKET_MARKER}`)).code, 0);
      const cmdline = await sh(`tr '\\0' ' ' < /proc/${h.pid}/cmdline`);
      assert.match(cmdline, /rclone mount skydeck:marked/);
      assert.ok(!cmdline.includes(keys.secretAccessKey) && !cmdline.includes(keys.accessKeyId), cmdline);
      const all = await sh('cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " "; true');
      assert.ok(!all.includes(keys.secretAccessKey), 'a process on the node has the secret in its argv');
      // Every file the mount left on the node (state dir, log, handle) is free of the keys. Only
      // files written since the mount began are read: the test hosts share this machine's /tmp,
      // and reading all of it took a minute without adding a file that could hold these keys.
      const hits = await env.hosts.hosts[0].exec(`find ~ /tmp -type d -name 'tsx-*' -prune -o -type f -newerct @${since} -print0 2>/dev/null`
        + ` | xargs -0 -r grep -lF -e ${keys.secretAccessKey} -e ${keys.accessKeyId} 2>/dev/null`);
      assert.equal(hits.stdout.trim(), '', `files holding a key: ${hits.stdout}`);
    } finally {
      await unmountBucket(env.t, h, 5_000);
    }
  });

  it('a prefix of shell words and quotes is copied as a path; nothing in it runs', async () => {
    await copyFromBucket(env.context(), { dst: '~/odd', mode: 'COPY', target: target(odd) });
    assert.equal(await sh('cat ~/odd/f.txt'), 'odd\n');
    assert.notEqual((await env.hosts.hosts[0].exec('test -e /tmp/pwned-atk16b')).code, 0, 'a word of the prefix ran');
  });

  it('object keys that climb ("../x", "a/../../x") never land outside the COPY destination', async () => {
    await env.s3.createBucket('climb');
    for (const k of ['../escape1.txt', 'a/../../escape2.txt', 'ok.txt']) await rawPut(env.moto.url, 'climb', k, Buffer.from(k));
    await sh('mkdir -p ~/climb-parent/dst');
    const r = await copyFromBucket(env.context(), { dst: '~/climb-parent/dst', mode: 'COPY', target: { store: 's3', bucket: 'climb', prefix: '' } })
      .then(() => 'ok', (e: Error) => e.message);
    assert.deepEqual((await env.s3.keys('climb')).sort(), ['../escape1.txt', 'a/../../escape2.txt', 'ok.txt'], 'the hostile keys are stored as such');
    const outside = await sh('cd ~ && find . -name "escape*" -not -path "./climb-parent/dst/*"');
    assert.equal(outside.trim(), '', `escaped the destination (copy said: ${r})`);
  });

  it('kill -9 of rclone mount leaves a dead FUSE mount; the next mount replaces it and ls does not hang', async () => {
    const m: NodeMount = { dst: '~/killed', mode: 'MOUNT', target: target() };
    const h = await mountBucket(env.context(), m);
    await sh(`kill -9 ${h.pid}`);
    const again = await mountBucket(env.context(), m);
    try {
      assert.notEqual(again.pid, h.pid);
      assert.equal((await mountAt(env.t, again.mountPoint))?.source, 'skydeck:marked');
      assert.match(await sh('timeout 20 ls ~/killed'), /data/);
    } finally {
      await unmountBucket(env.t, again, 5_000);
    }
    assert.equal(await mountAt(env.t, h.mountPoint), undefined);
  });

  it('kill -9 of rclone in the middle of a COPY: the next COPY completes it byte for byte', async () => {
    proxy.hold((method, path) => method === 'GET' && path.startsWith('/marked/big.bin'));
    const first = copyFromBucket(env.context({ endpoint: proxy.url }), { dst: '~/halfway', mode: 'COPY', target: target() });
    await proxy.held();
    // Only the copy this test started: rclone runs with the destination as its cwd.
    await sh('for p in $(pgrep -u "$(id -u)" -f "^rclone copy skydeck:marked"); do [ "$(readlink /proc/$p/cwd)" = "$HOME/halfway" ] && kill -KILL $p; done; true');
    await assert.rejects(first);
    proxy.hold(() => false);
    proxy.release();
    await copyFromBucket(env.context(), { dst: '~/halfway', mode: 'COPY', target: target() });
    assert.equal((await sh('sha256sum ~/halfway/big.bin')).split(' ')[0], sha(big));
    assert.equal(await sh('cat ~/halfway/data/a.txt'), 'a\n');
  });

  it('two mounts racing for one destination: one rclone serves it, none is left orphaned', async () => {
    const m: NodeMount = { dst: '~/raced', mode: 'MOUNT', target: target() };
    const results = await Promise.allSettled([mountBucket(env.context(), m), mountBucket(env.context(), m)]);
    const ok = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    assert.ok(ok.length >= 1, results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok')).join('; '));
    const pids = new Set(ok.map((h) => h.pid));
    assert.equal(pids.size, 1, `two rclone mounts serve one destination: ${[...pids].join(', ')}`);
    const stacked = (await sh('cat /proc/self/mountinfo')).split('\n').filter((l) => l.includes('/raced ')).length;
    assert.equal(stacked, 1, 'mounts stacked at one destination');
    await unmountBucket(env.t, ok[0], 5_000);
    assert.equal(await mountAt(env.t, ok[0].mountPoint), undefined);
    assert.equal((await env.hosts.hosts[0].exec('pgrep -u "$(id -u)" -f "^rclone mount skydeck:marked"')).stdout.trim(), '');
  });
});
