// The controller process the kill -9 test kills: it serves the managed jobs of `root` against
// the fake cloud kept in `cloudFile` (shared with the parent) and SIGKILLs itself at a cloud
// call (the call count lives in the cloud file, so it counts over every process).
import * as fs from 'node:fs';
import { scaledClock } from '../../../src/core/provision';
import { fileStorage } from '../../support/fakeCloud/storage';
import { makeCtx, openController, SCALE } from './helpers';

export interface KillChildConfig {
  root: string;
  cloudFile: string;
  epoch: number;
  /** 0: never (the parent kills it at a random instant instead). */
  killAtCall: number;
  /**
   * Submits this many jobs once serving (in rounds of 1 to 4 at once, so saves hold several),
   * appending each id to ackFile the moment its submit resolves: what was acknowledged.
   */
  submit?: { count: number; ackFile: string; runs: string };
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
  const sub = cfg.submit;
  for (let i = 0; sub && i < sub.count; ) {
    const round = Array.from({ length: Math.min(1 + (i % 4), sub.count - i) }, () => i++);
    await Promise.all(round.map(async (k) => {
      const id = await ctl.submit({ tasks: [`resources:\n  infra: aws/r1\nrun: echo s${k} >> ${sub.runs}\n`], name: `s${k}` });
      fs.appendFileSync(sub.ackFile, `${id} s${k}\n`);
    }));
  }
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
