// Issue 16: right after a reused cluster's bucket role is widened, IAM may still refuse the node
// for a few seconds. A COPY (real rclone onto a real sshd test host) through a proxy in front of
// moto that answers 403 AccessDenied until told otherwise: retried only for a mount whose grant
// was just made, and refused at once otherwise.
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { attachBuckets } from '../../../src/core/ops/bucketAttach';
import type { PlannedMount } from '../../../src/core/ops/bucketPlan';
import { OpsError } from '../../../src/core/ops/errors';
import type { OpsContext } from '../../../src/core/ops';
import { DUMMY_CREDENTIALS } from '../../support/moto';
import { requireStorageTools, startStorageEnv, type StorageEnv } from './env';

/** Forwards to moto, or answers S3's AccessDenied (REST error XML, HTTP 403) while `deny` is set. */
async function denyingProxy(target: string): Promise<{ url: string; deny: boolean; denied: number; close(): Promise<void> }> {
  const state = { url: '', deny: true, denied: 0, close: async () => undefined as void };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (state.deny) {
        state.denied++;
        res.writeHead(403, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>');
        return;
      }
      const t = new URL(target);
      const out = http.request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      out.on('error', () => res.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
}

describe('ops: a mount refused right after its bucket grant is retried while IAM applies it', function () {
  this.timeout(120_000);
  let env: StorageEnv;
  let proxy: Awaited<ReturnType<typeof denyingProxy>>;

  before(async function () {
    requireStorageTools(this);
    env = await startStorageEnv({ fuse: false });
    await env.s3.createBucket('settle-bkt');
    await env.s3.put('settle-bkt', 'f.txt', Buffer.from('granted\n'));
    proxy = await denyingProxy(env.moto.url);
  });
  after(async () => {
    await proxy?.close();
    await env?.teardown();
  });

  const planOf = (dst: string, justGranted: boolean): PlannedMount[] => [{
    mount: { dst, mode: 'COPY', target: { store: 's3', bucket: 'settle-bkt', prefix: '' } },
    access: { credentials: { kind: 'keys', ...DUMMY_CREDENTIALS }, endpoint: proxy.url, region: 'us-east-1' },
    ...(justGranted ? { justGranted: true } : {}),
  }];
  const node = () => ({ name: 'host0', transport: env.t, stateBase: '~/.skydeck-settle/storage' });

  it('without a fresh grant a refusal fails the mount at once, naming it', async () => {
    proxy.deny = true;
    const progress: string[] = [];
    const ctx = { progress: (m: string) => progress.push(m), log: () => undefined } as unknown as OpsContext;
    await assert.rejects(attachBuckets(ctx, node(), planOf('~/settle-a', false)), (e: Error) => e instanceof OpsError && /~\/settle-a: s3:\/\/settle-bkt/.test(e.message) && /AccessDenied|403|denied/i.test(e.message));
    assert.ok(!progress.some((l) => l.includes('still refused')), progress.join('\n'));
  });

  it('after a fresh grant it waits (saying why) and succeeds once the store lets it in', async () => {
    proxy.deny = true;
    const progress: string[] = [];
    // The store starts answering the moment the user is told the mount waits for the grant.
    const ctx = {
      log: () => undefined,
      progress: (m: string) => {
        progress.push(m);
        if (m.includes('still refused; waiting for the new bucket grant to apply')) proxy.deny = false;
      },
    } as unknown as OpsContext;
    await attachBuckets(ctx, node(), planOf('~/settle-b', true));
    assert.ok(progress.includes('~/settle-b: s3://settle-bkt on host0: still refused; waiting for the new bucket grant to apply'), progress.join('\n'));
    assert.ok(proxy.denied > 0);
    const r = await env.hosts.hosts[0].exec('cat ~/settle-b/f.txt');
    assert.equal(r.stdout, 'granted\n');
  });
});
