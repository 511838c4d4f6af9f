// Matching and consuming injected faults (see FaultRule in model.ts).
import { ProviderError } from '../../../src/core/clouds/provider';
import type { FakeCloudState, FakeOp, FaultRule } from './model';

const MODIFIERS = new Set(['noop', 'late', 'slow', 'partial']);

/**
 * Takes the first live rule for this call point (counting it down). `at` 'before'/'after'
 * selects error rules; 'modifier' selects noop/late rules, 'slow' and 'partial' select those,
 * whatever their `at`.
 */
export function takeFault(s: FakeCloudState, op: FakeOp, at: 'before' | 'after' | 'modifier' | 'slow' | 'partial', zone?: string): FaultRule | undefined {
  const kind = (f: FaultRule) => (f.effect === 'slow' || f.effect === 'partial' ? f.effect : MODIFIERS.has(f.effect) ? 'modifier' : f.at);
  const rule = s.faults.find((f) => f.op === op && f.times !== 0 && (!f.zone || f.zone === zone) && kind(f) === at);
  if (rule && rule.times > 0) rule.times--;
  return rule;
}

/** The error a throwing fault raises; undefined for noop/late, which change behaviour instead. */
export function faultError(rule: FaultRule, op: FakeOp, zone?: string): Error | undefined {
  switch (rule.effect) {
    case 'throw': return new Error(`fake: connection reset during ${op} (${rule.at})`);
    case 'transient': return new ProviderError('transient', `fake: ${op} throttled (${rule.at})`);
    case 'capacity': return new ProviderError('capacity', `fake: no capacity in ${zone ?? 'this zone'}`);
    case 'auth': return new ProviderError('auth', 'fake: credentials expired', 'log in to the fake cloud again');
    case 'quota': return new ProviderError('quota', `fake: vCPU quota exceeded in ${zone ?? 'this region'}`, 'request a higher quota');
    case 'config': return new ProviderError('config', 'fake: the image does not exist in this region', 'check image_id');
    default: return undefined;
  }
}
