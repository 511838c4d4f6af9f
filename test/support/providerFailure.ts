import * as assert from 'node:assert/strict';
import { ProviderError } from '../../src/core/clouds/provider';

/** The ProviderError a provider call fails with; fails the test if it succeeds or throws anything else. */
export async function providerFailure(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ProviderError, `a ProviderError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a failure');
}
