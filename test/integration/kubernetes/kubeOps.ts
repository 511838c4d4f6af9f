// The ops context every kit test launches through: the kubernetes provider only, and the
// progress and log lines on stderr with SKYDECK_TEST_VERBOSE=1.
import { staticProviders } from '../../../src/core/clouds/provider';
import { createKubernetesProvider } from '../../../src/core/clouds/kubernetes';
import { testOps, type TestOps } from '../ops/helpers';

export async function kubeOps(): Promise<TestOps> {
  const ops = await testOps();
  ops.providers = staticProviders(createKubernetesProvider());
  if (process.env.SKYDECK_TEST_VERBOSE) {
    ops.progress = (l) => console.error(`[progress] ${l}`);
    ops.log = (l) => console.error(`[log] ${l}`);
  }
  return ops;
}
