// A provider's typed error kind reaches the provision result unchanged: the attempt reports,
// the onAttempt callback (what the CLI and the editor show) and the summary. On a virtual clock.
import assert from 'node:assert/strict';
import type { ProviderErrorKind } from '../../../src/core/clouds/provider';
import type { AttemptReport, CallFailureKind, FailureKind, Proof, UnknownPart } from '../../../src/core/provision';
import type { AccountCheck } from '../../../src/core/provision/account';
import type { StepFailure } from '../../../src/core/provision/attempt';
import type { Outcome } from '../../../src/core/provision/call';
import { harness, type Harness } from '../../support/fakeCloud/harness';
import { virtualClock } from '../../support/virtualClock';
import { endScenario } from './leakStats';
import { assertNoLeaks, launch, row, zone } from './helpers';

/**
 * Compiled by tsc (tsconfig includes test/), never called: each assignment fails to compile if
 * the kind on its way from provider to UI is widened back to `string`.
 */
export function kindsStayTyped(a: AttemptReport, s: StepFailure, o: Outcome<unknown>, u: UnknownPart, p: Proof, c: AccountCheck): void {
  const fromProvider = (k: ProviderErrorKind): CallFailureKind => k;
  const fromCall = (k: CallFailureKind): FailureKind => k;
  const kinds: (FailureKind | undefined)[] = [a.kind, s.kind, o.ok ? undefined : o.kind, u.kind, p.errorKind, c.ok ? undefined : c.kind];
  // @ts-expect-error an attempt's kind is one of the known kinds, not any string
  const report: AttemptReport['kind'] = 'disk-full';
  // @ts-expect-error a sweep's unknown part carries a provider kind (or "unknown"), not "cancelled"
  const part: UnknownPart['kind'] = 'cancelled';
  void [fromProvider, fromCall, kinds, report, part];
}

const KINDS: readonly ProviderErrorKind[] = ['capacity', 'quota', 'auth', 'config', 'transient'];
/** The kinds another zone will not fix: the loop stops after the first attempt. */
const STOPS: readonly ProviderErrorKind[] = ['auth', 'config'];

describe('provision: error kinds stay typed from provider to result', () => {
  let h: Harness | undefined;
  afterEach(async function () {
    await endScenario(this.currentTest, h);
    h = undefined;
  });

  for (const kind of KINDS) {
    it(`a provider's "${kind}" error is the attempt's kind, in the result and in onAttempt`, async () => {
      const t = await harness({ clock: virtualClock() });
      h = t;
      t.cloud.inject({ op: 'runInstances', at: 'before', effect: kind, times: -1 });
      const seen: AttemptReport['kind'][] = [];
      const res = await launch(t, 'c1', { placements: [zone('r1a'), zone('r1b')], onAttempt: (a) => seen.push(a.kind) });
      assert.equal(res.ok, false);
      const expected = STOPS.includes(kind) ? [kind] : [kind, kind];
      assert.deepEqual(res.attempts.map((a) => a.kind), expected);
      assert.deepEqual(res.attempts.map((a) => a.outcome), expected.map(() => 'failed'));
      assert.deepEqual(seen, expected, 'onAttempt sees the same kinds');
      assert.match(res.error!, new RegExp(`1\\. fake/r1/r1a: ${kind}: fake: `));
      assert.equal(await row(t, 'c1'), undefined, 'nothing was created, so the row is gone after proof');
      await assertNoLeaks(t);
    });
  }

  it('an untyped throw is "unknown": never read as a provider kind', async () => {
    const t = await harness({ clock: virtualClock() });
    h = t;
    t.cloud.inject({ op: 'runInstances', at: 'before', effect: 'throw', times: -1 });
    const res = await launch(t, 'c1');
    assert.deepEqual(res.attempts.map((a) => [a.outcome, a.kind]), [['failed', 'unknown']]);
    await assertNoLeaks(t);
  });

  it('a cancel is "cancelled", with what it created terminated', async () => {
    const t = await harness({ clock: virtualClock() });
    h = t;
    // Cancelled while the head is set up: the step after it sees the signal.
    const abort = new AbortController();
    const bootstrap = async () => (abort.abort(), { workdir: '/tmp' });
    const res = await launch(t, 'c1', { signal: abort.signal, bootstrap });
    assert.deepEqual(res.attempts.map((a) => [a.outcome, a.kind, a.cleanup]), [['cancelled', 'cancelled', 'confirmed']]);
    await assertNoLeaks(t);
  });
});
