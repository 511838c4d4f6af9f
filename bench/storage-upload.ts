// Uploading a tree of many small files into a `name:` bucket (issue 16: "changed files only on
// later launches"), against moto's S3 on 127.0.0.1 through the BucketStore a launch uses.
//
// storage.upload_10k_files_s    10,000 files of 100-2,000 bytes into an empty bucket (hash,
//                               list, send with the store's default concurrency).
// storage.reupload_changed_s    the same tree again with 10 files changed: what a relaunch costs
//                               (hash all, list all, send 10).
//
// Runs inside `npm run bench:storage`, or alone (no root, no test host): npm run bench:storage-upload
// BENCH_UPLOAD_FILES overrides the 10,000.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { S3BucketStore } from '../src/core/storage/buckets/s3';
import { DUMMY_CREDENTIALS, startMoto } from '../test/support/moto';
import { S3Http } from '../test/integration/storage/s3Http';
import { runBench } from './runBench';

export interface UploadFigures {
  files: number;
  first_s: number;
  first_uploaded: number;
  again_s: number;
  again_uploaded: number;
  again_unchanged: number;
}

function tree(dir: string, n: number): Map<string, string> {
  const files = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const rel = `d${i % 100}/f${i}.txt`;
    const p = path.join(dir, rel);
    if (i < 100) fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, `file ${i} `.repeat(10 + (i % 190)));
    files.set(p, rel);
  }
  return files;
}

/** Both figures against the moto at `motoUrl` (its S3 reached with the dummy keys). */
export async function measureUpload(motoUrl: string, n: number, log: (s: string) => void): Promise<UploadFigures> {
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY, region: process.env.AWS_REGION };
  process.env.AWS_ACCESS_KEY_ID = DUMMY_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = DUMMY_CREDENTIALS.secretAccessKey;
  process.env.AWS_REGION = 'us-east-1';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-upload-'));
  const store = new S3BucketStore({ store: 's3', endpoint: motoUrl });
  try {
    const bucket = `skydeck-bench-upload-${Date.now()}`;
    await new S3Http(motoUrl).createBucket(bucket);
    const files = tree(dir, n);
    log(`uploading ${n} files`);
    let t = performance.now();
    const first = await store.upload(bucket, files);
    const firstS = (performance.now() - t) / 1000;
    const changed = [...files.keys()].filter((_, i) => i % Math.floor(n / 10) === 0).slice(0, 10);
    for (const p of changed) fs.appendFileSync(p, 'changed\n');
    log(`again, with ${changed.length} changed`);
    t = performance.now();
    const again = await store.upload(bucket, files);
    const againS = (performance.now() - t) / 1000;
    return { files: n, first_s: firstS, first_uploaded: first.uploaded, again_s: againS, again_uploaded: again.uploaded, again_unchanged: again.unchanged };
  } finally {
    store.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
    for (const [k, v] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret], ['AWS_REGION', saved.region]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The two JSON lines. */
export function uploadLines(f: UploadFigures, loadavg: string): Record<string, unknown>[] {
  const r2 = (x: number): number => Number(x.toFixed(2));
  return [
    { figure: 'storage.upload_10k_files_s', value: r2(f.first_s), unit: 's', files: f.files, uploaded: f.first_uploaded, store: 'moto S3 on 127.0.0.1', loadavg },
    { figure: 'storage.reupload_changed_s', value: r2(f.again_s), unit: 's', files: f.files, uploaded: f.again_uploaded, unchanged: f.again_unchanged, loadavg },
  ];
}

if (require.main === module) {
  runBench(async () => {
    const moto = await startMoto();
    try {
      const n = Number(process.env.BENCH_UPLOAD_FILES || 10_000);
      const f = await measureUpload(moto.url, n, (s) => process.stderr.write(`  ${s}\n`));
      const la = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
      for (const line of uploadLines(f, la)) process.stdout.write(`${JSON.stringify(line)}\n`);
    } finally {
      await moto.stop();
    }
  });
}
