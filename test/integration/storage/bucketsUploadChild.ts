// The child of the kill -9 test: runs ensureNamedBuckets on a task with many files, slowly
// (one upload at a time), until the parent kills it. Args: workspace root, moto URL, cluster uid.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureNamedBuckets } from '../../../src/core/ops/namedBuckets';
import { bucketOps, bucketTask, clusterRow } from './bucketsOpsHelpers';

async function main(): Promise<void> {
  const [root, motoUrl, clusterUid] = process.argv.slice(2);
  const ctx = await bucketOps(root, motoUrl, 1);
  const task = bucketTask(fs.readFileSync(path.join(root, 'task.yaml'), 'utf8'), root);
  ctx.progress = (s) => { if (/Uploading into/.test(s)) process.stdout.write(`${s}\n`); };
  await ensureNamedBuckets(ctx, task, root, clusterRow(clusterUid));
  process.stdout.write('DONE\n');
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
