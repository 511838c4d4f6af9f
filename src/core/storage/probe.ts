// Before a COPY or MOUNT: can the node reach and list the bucket? A failure here becomes the
// typed, mount-naming error launch shows, instead of a mount that fails on first access.
// `exec`: a time-out's SIGTERM then reaches rclone itself, not just the shell around it.
import { classifyFailure, timeoutError } from './errors';
import { probeArgv } from './rcloneArgs';
import { runWithEnv } from './runOnNode';
import type { Prepared, StorageContext } from './context';
import { quoteArgv } from '../transport/shellQuote';

export async function probeBucket(ctx: StorageContext, p: Prepared, signal?: AbortSignal): Promise<void> {
  const r = await runWithEnv(ctx.transport, `exec ${quoteArgv(probeArgv(p.remote.remotePath))}`, p.remote.env,
    { timeoutMs: p.timeouts.probeMs, signal });
  if (r.timedOut) throw timeoutError(p.label, 'reaching the bucket', p.timeouts.probeMs);
  if (r.code !== 0) {
    throw classifyFailure(p.label, 'listing the bucket', r.code, p.clean(r.stderr.toString()));
  }
}
