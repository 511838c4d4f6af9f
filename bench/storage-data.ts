// The storage bench's bucket: about BENCH_STORAGE_MB MiB in three sizes (a few large files,
// many 1 MiB ones, many 4 KiB ones), written from a random pool (not zeros, so nothing on the
// way can shrink it) into a local scratch directory, then uploaded to moto by rclone in
// parallel, as a user fills a bucket; one PUT at a time would take minutes.
import { spawn } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DUMMY_CREDENTIALS } from '../test/support/moto';

const MIB = 1048576;
const KIB = 1024;

export interface Dataset {
  bucket: string;
  files: number;
  bytes: number;
  /** The mix, for the JSON lines: count and size of each kind. */
  mix: Record<'large' | 'medium' | 'small', { count: number; bytes_each: number }>;
  /** Keys of some files, for the cold reads through MOUNT, one per directory: a 1 MiB file, a large one, then the rest. */
  samples: string[];
}

interface Planned { key: string; size: number }

/** ~40% in large files (100 MiB at 1 GiB, a tenth of the total when smaller), 2 small files per MiB, the rest 1 MiB. */
export function planDataset(totalMib: number): { files: Planned[]; mix: Dataset['mix'] } {
  const total = totalMib * MIB;
  const large = Math.min(100 * MIB, Math.max(MIB, Math.floor(total / 10)));
  const nLarge = Math.max(1, Math.round((0.4 * total) / large));
  const nSmall = Math.max(16, Math.round(2 * totalMib));
  const nMedium = Math.max(1, Math.floor((total - nLarge * large - nSmall * 4 * KIB) / MIB));
  const files: Planned[] = [];
  for (let i = 0; i < nLarge; i++) files.push({ key: `large/part-${i}.bin`, size: large });
  for (let i = 0; i < nMedium; i++) files.push({ key: `medium/d${i % 16}/shard-${i}.bin`, size: MIB });
  for (let i = 0; i < nSmall; i++) files.push({ key: `small/d${i % 32}/rec-${i}.bin`, size: 4 * KIB });
  return {
    files,
    mix: { large: { count: nLarge, bytes_each: large }, medium: { count: nMedium, bytes_each: MIB }, small: { count: nSmall, bytes_each: 4 * KIB } },
  };
}

/** Writes the files under dir from one 32 MiB random pool, each starting at its own offset. */
function writeFiles(dir: string, files: Planned[]): void {
  const pool = randomFillSync(Buffer.alloc(32 * MIB));
  let seed = 1;
  for (const f of files) {
    const p = path.join(dir, f.key);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    const fd = fs.openSync(p, 'w');
    try {
      for (let done = 0; done < f.size;) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const off = seed % (pool.length - 8 * MIB);
        const n = Math.min(8 * MIB, f.size - done);
        fs.writeSync(fd, pool, off, n);
        done += n;
      }
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** rclone's remote for moto on this machine, by environment only (no config file written). */
export function motoRemoteEnv(name: string, endpoint: string): Record<string, string> {
  const p = `RCLONE_CONFIG_${name.toUpperCase()}_`;
  return {
    RCLONE_CONFIG: '/dev/null',
    [`${p}TYPE`]: 's3', [`${p}PROVIDER`]: 'Other', [`${p}ENDPOINT`]: endpoint, [`${p}REGION`]: 'us-east-1',
    [`${p}ACCESS_KEY_ID`]: DUMMY_CREDENTIALS.accessKeyId, [`${p}SECRET_ACCESS_KEY`]: DUMMY_CREDENTIALS.secretAccessKey,
  };
}

export function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    // rclone 1.60's S3 client refuses to start when AWS_CA_BUNDLE is set (see runOnNode.ts); moto is plain HTTP.
    const { AWS_CA_BUNDLE: _unused, ...base } = process.env;
    const c = spawn(cmd, args, { env: { ...base, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000); });
    c.on('error', reject);
    c.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}: ${err}`))));
  });
}

/** Fills the bucket (the caller created it): generate locally, upload, remove the local copy. */
export async function fillBucket(endpoint: string, bucket: string, totalMib: number, log: (s: string) => void): Promise<Dataset> {
  const { files, mix } = planDataset(totalMib);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-storage-'));
  try {
    let t0 = performance.now();
    writeFiles(dir, files);
    log(`generated ${files.length} files in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    t0 = performance.now();
    await run('rclone', ['copy', dir, `benchsrc:${bucket}`, '--transfers', '16', '--checkers', '32'], motoRemoteEnv('benchsrc', endpoint));
    log(`uploaded to moto in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const dirs = ['medium/d0/', 'large/', 'medium/d1/', 'medium/d2/', ...[0, 1, 2].map((d) => `small/d${d}/`)];
  const samples = dirs.map((d) => files.find((f) => f.key.startsWith(d))?.key).filter((k): k is string => k !== undefined);
  return { bucket, files: files.length, bytes: files.reduce((s, f) => s + f.size, 0), mix, samples };
}
