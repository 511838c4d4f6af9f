// COPY mode: the bucket's objects become plain files at the destination before setup.
import { classifyFailure, timeoutError } from './errors';
import { copyArgv } from './rcloneArgs';
import { runWithEnv } from './runOnNode';
import { prepare, type StorageContext } from './context';
import { probeBucket } from './probe';
import type { NodeMount } from './target';
import { quoteArgv, quotePath } from '../transport/shellQuote';

export async function copyFromBucket(ctx: StorageContext, m: NodeMount, signal?: AbortSignal): Promise<void> {
  const p = prepare(ctx, m);
  await probeBucket(ctx, p, signal);
  p.say('copying from the bucket');
  const script = `mkdir -p ${quotePath(m.dst)} && cd ${quotePath(m.dst)} && exec ${quoteArgv(copyArgv(p.remote.remotePath, '.'))}`;
  const r = await runWithEnv(ctx.transport, script, p.remote.env, { timeoutMs: p.timeouts.copyMs, signal });
  if (r.timedOut) throw timeoutError(p.label, 'the copy from the bucket', p.timeouts.copyMs);
  if (r.code !== 0) throw classifyFailure(p.label, 'the copy from the bucket', r.code, p.clean(r.stderr.toString()));
  p.say('copied');
}
