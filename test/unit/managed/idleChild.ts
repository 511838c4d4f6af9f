// The CLI's `jobs controller-run` loop (idle exit and all) in a child process over the fake
// cloud kept in a file shared with the parent: the controller `jobs launch` would start.
import { jobsControllerRun } from '../../../src/cli/commands/jobsControllerRun';
import { fileStorage } from '../../support/fakeCloud/storage';
import { scaledClock } from '../../../src/core/provision';
import { makeCtx, SCALE } from './helpers';

async function main(root: string, cloudFile: string, epoch: number, idleSeconds: string): Promise<number> {
  process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
  const { ctx } = await makeCtx(root, { clock: scaledClock(SCALE, epoch), storage: fileStorage(cloudFile) });
  const code = await jobsControllerRun({ out: () => undefined, outBytes: () => undefined, err: (t) => process.stderr.write(t) }, ctx, { 'idle-seconds': idleSeconds, 'poll-ms': '2000' });
  await ctx.connections.closeAll();
  ctx.store.close();
  return code;
}

const [root, cloudFile, epoch, idle] = process.argv.slice(2);
main(root, cloudFile, Number(epoch), idle).then((c) => process.exit(c), (e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(70);
});
