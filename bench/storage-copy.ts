// COPY throughput: Skydeck's copyFromBucket onto the test host against `rclone copy` as a user
// would run it by hand on the same host (a remote in ~/.config/rclone/rclone.conf, no flags),
// on the same bucket in the same run. Two rounds in alternating order (Skydeck first, then
// rclone first), best of each, so a warm page cache or a busy neighbour favours neither.
import { copyFromBucket, type StorageContext } from '../src/core/storage';
import type { SshTransport } from '../src/core/transport';
import { DUMMY_CREDENTIALS } from '../test/support/moto';
import type { Dataset } from './storage-data';

export interface CopyRuns { skydeck: number[]; rclone: number[] }

async function sh(t: SshTransport, script: string, stdin?: string): Promise<string> {
  const r = await t.execShell(script, { stdin, signal: AbortSignal.timeout(3600_000) });
  if (r.code !== 0) throw new Error(`on the test host: ${script}: exit ${r.code}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** The config a user writes with `rclone config` for an S3-compatible endpoint. */
function handConfig(endpoint: string): string {
  return ['[bench]', 'type = s3', 'provider = Other', `endpoint = ${endpoint}`, 'region = us-east-1',
    `access_key_id = ${DUMMY_CREDENTIALS.accessKeyId}`, `secret_access_key = ${DUMMY_CREDENTIALS.secretAccessKey}`, ''].join('\n');
}

/** Fails unless dir holds exactly the dataset's file count and bytes; then removes it. */
async function checkAndRemove(t: SshTransport, dir: string, d: Dataset): Promise<void> {
  const out = await sh(t, `find ${dir} -type f -printf '%s\\n' | awk '{s+=$1} END {print NR+0, s+0}'`);
  const [files, bytes] = out.trim().split(' ').map(Number);
  if (files !== d.files || bytes !== d.bytes) throw new Error(`${dir}: ${files} files / ${bytes} bytes, expected ${d.files} / ${d.bytes}`);
  await sh(t, `rm -rf ${dir}`);
}

export async function measureCopy(ctx: StorageContext, d: Dataset, endpoint: string, log: (s: string) => void): Promise<CopyRuns> {
  const t = ctx.transport as SshTransport;
  await sh(t, 'mkdir -p ~/.config/rclone && umask 077 && cat > ~/.config/rclone/rclone.conf && rm -rf ~/bench-copy-*', handConfig(endpoint));
  const runs: CopyRuns = { skydeck: [], rclone: [] };
  const mbps = (secs: number): number => d.bytes / 1e6 / secs;
  const skydeck = async (): Promise<void> => {
    const t0 = performance.now();
    await copyFromBucket(ctx, { dst: '~/bench-copy-skydeck', mode: 'COPY', target: { store: 's3', bucket: d.bucket, prefix: '' } });
    runs.skydeck.push(mbps((performance.now() - t0) / 1000));
    log(`skydeck copy: ${runs.skydeck.at(-1)!.toFixed(1)} MB/s`);
    await checkAndRemove(t, '~/bench-copy-skydeck', d);
  };
  const byHand = async (): Promise<void> => {
    const t0 = performance.now();
    await sh(t, `rclone copy bench:${d.bucket} ~/bench-copy-rclone`);
    runs.rclone.push(mbps((performance.now() - t0) / 1000));
    log(`rclone copy by hand: ${runs.rclone.at(-1)!.toFixed(1)} MB/s`);
    await checkAndRemove(t, '~/bench-copy-rclone', d);
  };
  const rounds = Number(process.env.BENCH_STORAGE_ROUNDS || 2);
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) { await skydeck(); await byHand(); } else { await byHand(); await skydeck(); }
  }
  await sh(t, 'rm -f ~/.config/rclone/rclone.conf');
  return runs;
}
