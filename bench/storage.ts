// Bucket storage figures (issue 16), against moto's S3 on 127.0.0.1 and one real sshd test host
// with FUSE (the set-up of test/integration/storage). One JSON line per figure on stdout,
// {"figure", "value", "unit", ...extra}; progress on stderr.
//
// storage.copy_mb_s            COPY (copyFromBucket) of a bucket of BENCH_STORAGE_MB MiB (default
//                              1024) of mixed sizes onto the host; best of the rounds.
// storage.rclone_mb_s          `rclone copy` by hand on the same host, same bucket, same run.
// storage.copy_vs_rclone       the two as a ratio; target >= 0.9.
// storage.mount_setup_ms       mountBucket (MOUNT) until the mount is up.
// storage.mount_first_byte_ms  the first read through that fresh mount (open to first byte of a
//                              1 MiB file, timed on the host); target <= 500. A large file's first
//                              byte is reported apart, with moto's own time for it: moto's one-byte
//                              ranged GET grows with the object (~1.1 s at 100 MiB here).
// storage.launch_overhead_s    launch with one MOUNT minus launch without (bench/storage-launch.ts);
//                              a skip line with the reason where launch does not mount buckets
//                              yet (a failure with BENCH_STRICT=1).
// storage.upload_10k_files_s   10,000 small files into a bucket, and storage.reupload_changed_s
//                              the same with 10 changed (bench/storage-upload.ts).
//
// Needs root (the test hosts), rclone, fuse3, /dev/fuse and moto; stops at once naming the
// command that installs what is missing. BENCH_STORAGE_ROUNDS (default 2) rounds per figure.
//   npm run bench:storage       BENCH_STORAGE_MB=64 npm run bench:storage
import * as fs from 'node:fs';
import { mountBucket, unmountBucket, type StorageContext } from '../src/core/storage';
import { shellQuote } from '../src/core/transport/shellQuote';
import { startStorageEnv, storageToolsMissing } from '../test/integration/storage/env';
import { fillBucket, type Dataset } from './storage-data';
import { measureCopy } from './storage-copy';
import { measureLaunch } from './storage-launch';
import { runBench } from './runBench';
import { measureUpload, uploadLines } from './storage-upload';

const log = (s: string): void => { process.stderr.write(`  ${s}\n`); };
const emit = (line: Record<string, unknown>): void => { process.stdout.write(`${JSON.stringify(line)}\n`); };
const r2 = (x: number): number => Number(x.toFixed(2));
const loadavg = (): string => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Mounts, then reads one byte of never-read files (timed on the host); unmounts. */
async function measureMount(ctx: StorageContext, d: Dataset): Promise<{ setupMs: number; firstMs: number; firstViaSshMs: number; largeMs: number; laterMs: number[] }> {
  const t0 = performance.now();
  const h = await mountBucket(ctx, { dst: '~/bench-mnt', mode: 'MOUNT', target: { store: 's3', bucket: d.bucket, prefix: '' } });
  const setupMs = performance.now() - t0;
  try {
    const reads: number[] = [];
    let firstViaSshMs = 0;
    for (const key of d.samples) {
      const t1 = performance.now();
      const f = shellQuote(`${h.mountPoint}/${key}`);
      const script = `s=$(date +%s%N); dd if=${f} of=/dev/null bs=1 count=1 status=none || exit 1; e=$(date +%s%N); echo $(( (e - s) / 1000 ))`;
      const r = await ctx.transport.execShell(script, { signal: AbortSignal.timeout(60_000) });
      if (r.code !== 0) throw new Error(`read of ${key} through the mount: exit ${r.code}: ${r.stderr.toString()}`);
      firstViaSshMs ||= performance.now() - t1;
      reads.push(Number(r.stdout.toString().trim()) / 1000);
    }
    return { setupMs, firstMs: reads[0], firstViaSshMs, largeMs: reads[1], laterMs: reads.slice(2) };
  } finally {
    await unmountBucket(ctx.transport, h);
  }
}

async function main(): Promise<void> {
  const missing = storageToolsMissing();
  if (missing) throw new Error(`bench:storage cannot run: ${missing}`);
  if (process.getuid?.() !== 0) throw new Error('bench:storage needs root for its sshd test host: run it as root (sudo -E npm run bench:storage)');
  const mib = Number(process.env.BENCH_STORAGE_MB || 1024);
  if (!(mib >= 1)) throw new Error(`BENCH_STORAGE_MB=${process.env.BENCH_STORAGE_MB}: give a size in MiB, at least 1`);
  const strict = process.env.BENCH_STRICT === '1';
  const env = await startStorageEnv();
  try {
    const bucket = 'skydeck-bench';
    await env.s3.createBucket(bucket);
    const d = await fillBucket(env.moto.url, bucket, mib, log);
    const data = { size_mib: mib, bytes: d.bytes, files: d.files, mix: d.mix };
    const ctx = env.context();

    const copy = await measureCopy(ctx, d, env.moto.url, log);
    const sky = Math.max(...copy.skydeck);
    const hand = Math.max(...copy.rclone);
    const la = loadavg();
    emit({ figure: 'storage.copy_mb_s', value: r2(sky), unit: 'MB/s', runs: copy.skydeck.map(r2), ...data, loadavg: la });
    emit({ figure: 'storage.rclone_mb_s', value: r2(hand), unit: 'MB/s', runs: copy.rclone.map(r2), command: 'rclone copy bench:<bucket> <dst>', ...data, loadavg: la });
    emit({ figure: 'storage.copy_vs_rclone', value: r2(sky / hand), unit: 'ratio', target: 0.9, order: 'alternating, best of each', loadavg: la });

    const m = await measureMount(ctx, d);
    // The store alone, after the mount's reads: moto's time for the same one-byte ranged GETs.
    const moto = [await env.s3.firstByteMs(bucket, d.samples[0]), await env.s3.firstByteMs(bucket, d.samples[1])];
    emit({ figure: 'storage.mount_setup_ms', value: Math.round(m.setupMs), unit: 'ms', note: 'mountBucket: probe, rclone mount started, mount seen', loadavg: loadavg() });
    emit({
      figure: 'storage.mount_first_byte_ms', value: r2(m.firstMs), unit: 'ms', target: 500, file: d.samples[0],
      large_file: d.samples[1], large_file_ms: r2(m.largeMs), later_cold_files_ms: m.laterMs.map(r2), via_ssh_ms: r2(m.firstViaSshMs),
      moto_ranged_get_ms: { [d.samples[0]]: r2(moto[0]), [d.samples[1]]: r2(moto[1]) },
      note: 'open to first byte, timed on the host; via_ssh_ms: the same read as one SSH exec from here; moto_ranged_get_ms: one-byte GETs straight to moto, afterwards', loadavg: loadavg(),
    });

    const up = await measureUpload(env.moto.url, Number(process.env.BENCH_UPLOAD_FILES || 10_000), log);
    for (const line of uploadLines(up, loadavg())) emit(line);

    const l = await measureLaunch(env.hosts, bucket, ctx.access, log);
    if ('skipped' in l) {
      emit({ figure: 'storage.launch_overhead_s', skipped: l.skipped });
      if (strict) process.exitCode = 1;
    } else {
      const w = Math.min(...l.with_s);
      const wo = Math.min(...l.without_s);
      emit({ figure: 'storage.launch_overhead_s', value: r2(w - wo), unit: 's', with_s: l.with_s.map(r2), without_s: l.without_s.map(r2),
        cold_with_s: r2(l.cold_with_s), cold_without_s: r2(l.cold_without_s), note: 'best with minus best without; cold_*: the first of each, not counted', loadavg: loadavg() });
    }
  } finally {
    await env.teardown();
  }
}

runBench(main);
