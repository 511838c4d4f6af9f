// fast-check arbitraries for the property test: faults to inject and steps to run.
import fc from 'fast-check';
import type { FaultRule } from './model';

export interface Step {
  /** 'switch': the user points the credentials at account a (acct-1) or b (acct-2), issue 12.2. */
  kind: 'launch' | 'refresh' | 'stop' | 'start' | 'down' | 'reconcile' | 'wait' | 'switch';
  name: 'a' | 'b';
  nodes: number;
  withRefresh: boolean;
  ms: number;
}

export const stepArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom('launch', 'launch', 'refresh', 'stop', 'start', 'down', 'reconcile', 'wait', 'switch'),
  name: fc.constantFrom('a', 'b'),
  nodes: fc.constantFrom(1, 1, 2),
  withRefresh: fc.boolean(),
  ms: fc.integer({ min: 0, max: 90_000 }),
});

const errorFault = fc.record({
  op: fc.constantFrom('runInstances', 'queryInstances', 'stopInstances', 'startInstances', 'terminateInstances', 'clusterInfo', 'listTagged'),
  at: fc.constantFrom('before', 'after'),
  effect: fc.constantFrom('throw', 'transient', 'capacity', 'auth'),
  times: fc.constantFrom(1, 2, 5, -1),
  zone: fc.constantFrom(undefined, 'r1a', 'r1b'),
});

const noopFault = fc.record({
  op: fc.constantFrom('stopInstances', 'terminateInstances'),
  at: fc.constant('before'),
  effect: fc.constant('noop'),
  times: fc.constantFrom(1, 2, -1),
});

// Late visibility up to 30 s: well inside the 60 s grace window, like the real <1 s case.
const lateFault = fc.record({
  op: fc.constant('runInstances'),
  at: fc.constant('before'),
  effect: fc.constant('late'),
  times: fc.constantFrom(1, 2, -1),
  lateMs: fc.integer({ min: 100, max: 30_000 }),
});

// A long call: instances are created near its end, well after it was issued.
const slowFault = fc.record({
  op: fc.constantFrom('runInstances', 'terminateInstances', 'queryInstances'),
  at: fc.constant('before'),
  effect: fc.constant('slow'),
  times: fc.constantFrom(1, 2, -1),
  delayMs: fc.integer({ min: 1_000, max: 45_000 }),
});

export const faultArb = fc.oneof(errorFault, noopFault, lateFault, slowFault).map((f) => {
  const out = { ...f } as FaultRule;
  // Provider contract: a typed refusal of runInstances means nothing was created.
  if (out.op === 'runInstances' && out.at === 'after' && (out.effect === 'capacity' || out.effect === 'auth')) out.effect = 'throw';
  if (out.zone === undefined) delete out.zone;
  return out;
});
