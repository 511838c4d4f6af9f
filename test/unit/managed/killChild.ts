// The controller process the kill -9 test kills: it serves the managed jobs of `root` against
// the fake cloud kept in `cloudFile` (shared with the parent) and SIGKILLs itself at a cloud
// call (the call count lives in the cloud file, so it counts over every process).
import { scaledClock } from '../../../src/core/provision';
import { fileStorage } from '../../support/fakeCloud/storage';
import { makeCtx, openController, SCALE } from './helpers';

export interface KillChildConfig {
  root: string;
  cloudFile: string;
  epoch: number;
  /** 0: never (the parent kills it at a random instant instead). */
  killAtCall: number;
}

async function main(cfg: KillChildConfig): Promise<void> {
  process.env.SKYDECK_SHUTDOWN_COMMAND = 'echo "test: shutdown skipped"';
  const clock = scaledClock(SCALE, cfg.epoch);
  const { ctx } = await makeCtx(cfg.root, {
    clock, storage: fileStorage(cfg.cloudFile),
    onCall: (_op, at, n) => {
      if (cfg.killAtCall > 0 && n >= cfg.killAtCall && at === 'before') process.kill(process.pid, 'SIGKILL');
    },
  });
  const ctl = await openController(ctx);
  await ctl.whenIdle();
  await ctl.stop();
  await ctx.connections.closeAll();
}

main(JSON.parse(process.argv[2]) as KillChildConfig).then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exit(70);
  },
);
