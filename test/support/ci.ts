// A test that needs something this machine lacks (an emulator, a browser, sshd, code-server):
// under CI that is a failure — CI must not go green without running it — and for a
// developer's partial run a skip with one loud line.
import { inCi } from '../../scripts/ci.mjs';

export { inCi };

/** Throws under CI; otherwise prints `why` loudly (once per `what`) and skips the test/suite. */
export function skipOrFailWithout(ctx: Mocha.Context, what: string, why: string): void {
  if (inCi()) throw new Error(`${what} cannot run: ${why}. CI is set, so this is a failure, not a skip.`);
  if (!announced.has(what)) {
    announced.add(what);
    console.error(`\n!!! SKIPPING ${what}: ${why}\n`);
  }
  ctx.skip();
}

const announced = new Set<string>();
