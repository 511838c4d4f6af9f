// The launch launchHold.test.ts kills (SIGKILL) once the head's agent is configured: prints
// "bootstrapped" then waits there, as a launch uploading a large workdir would.
import { launch } from '../../../src/core/ops';
import { holdOps } from './launchHoldFixture';

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2]) as { root: string; cloudFile: string; task: string; name: string };
  const ctx = await holdOps(cfg.root, cfg.cloudFile, async () => {
    process.stdout.write('bootstrapped\n');
    await new Promise(() => setInterval(() => undefined, 60_000));
  });
  await launch(ctx, { taskFile: cfg.task, cluster: cfg.name, cloud: 'aws', idleMinutes: 0, down: true, detach: true });
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
