// Set-up for the storage tests: moto (S3) on 127.0.0.1, one real sshd test host with FUSE
// usable by its user, an SSH transport to it, and a StorageContext that reaches moto with the
// dummy keys (the explicit-keys path; a VM identity cannot exist on a test host).
import { spawnSync } from 'node:child_process';
import { DUMMY_CREDENTIALS, motoMissing, startMoto, type MotoServer } from '../../support/moto';
import { skipOrFailWithout } from '../../support/ci';
import { enableFuseIn } from '../../support/fuseHost';
import { setup, type Env } from '../transport/helpers';
import type { SshTransport } from '../../../src/core/transport';
import type { StorageContext } from '../../../src/core/storage';
import { S3Http } from './s3Http';

/** rclone and FUSE 3 on this machine (and on the test hosts, which share its filesystem). */
export function storageToolsMissing(): string | undefined {
  const rclone = spawnSync('rclone', ['version'], { encoding: 'utf8' });
  if (rclone.status !== 0) return 'rclone is not installed (apt-get install rclone)';
  if (spawnSync('sh', ['-c', 'command -v fusermount3'], { encoding: 'utf8' }).status !== 0) return 'fusermount3 is not installed (apt-get install fuse3)';
  if (spawnSync('test', ['-c', '/dev/fuse']).status !== 0) return 'this machine has no /dev/fuse';
  return motoMissing();
}

export function requireStorageTools(ctx: Mocha.Context): void {
  const why = storageToolsMissing();
  if (why) skipOrFailWithout(ctx, 'the storage tests (test/integration/storage)', why);
}

export interface StorageEnv {
  moto: MotoServer;
  s3: S3Http;
  hosts: Env;
  t: SshTransport;
  /** A context for bucket access through `endpoint` (default moto). */
  context(opts?: { endpoint?: string; keys?: { accessKeyId: string; secretAccessKey: string }; timeouts?: StorageContext['timeouts'] }): StorageContext;
  teardown(): Promise<void>;
}

export async function startStorageEnv(opts: { fuse?: boolean } = {}): Promise<StorageEnv> {
  const moto = await startMoto();
  let hosts: Env | undefined;
  try {
    hosts = await setup(1);
    if (opts.fuse !== false) await enableFuseIn(hosts.hosts[0], hosts.dir);
  } catch (e) {
    await hosts?.teardown();
    await moto.stop();
    throw e;
  }
  const env = hosts;
  return {
    moto, hosts: env, s3: new S3Http(moto.url), t: env.transport(env.hosts[0]),
    context: (o = {}) => ({
      transport: env.transport(env.hosts[0]),
      stateBase: '~/.skydeck/storage',
      access: { credentials: { kind: 'keys', ...(o.keys ?? DUMMY_CREDENTIALS) }, endpoint: o.endpoint ?? moto.url, region: 'us-east-1' },
      timeouts: o.timeouts,
    }),
    async teardown() {
      await env.teardown();
      await moto.stop();
    },
  };
}
