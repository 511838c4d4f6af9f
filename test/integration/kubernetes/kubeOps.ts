// The ops context every kit test launches through: the kubernetes provider only, and the
// progress and log lines on stderr with SKYDECK_TEST_VERBOSE=1.
import { staticProviders } from '../../../src/core/clouds/provider';
import { createKubernetesProvider } from '../../../src/core/clouds/kubernetes';
import type { ProvisionTiming } from '../../../src/core/provision';
import { testOps, type TestOps } from '../ops/helpers';

/**
 * For files whose subject is not the launch grace: 10 s, not the default minute. A pod made but
 * not listed yet proves nothing until the grace passes; Kubernetes lists a pod once it is made,
 * so a down soon after a launch only idled out the rest of the minute.
 */
export const SHORT_LAUNCH_GRACE: Partial<ProvisionTiming> = { launchGraceMs: 10_000 };

export async function kubeOps(timing?: Partial<ProvisionTiming>): Promise<TestOps> {
  const ops = await testOps();
  if (timing) ops.timing = { ...ops.timing, ...timing };
  // A pod left Terminating past its grace is forced 2 s on, not 15 s: the kit's kubelet (1.20)
  // at times never confirms a finished pod's delete, and each such down idled out the rest.
  // (Forcing itself is proven in test/unit/provision/kubernetesFaults.test.ts.)
  ops.providers = staticProviders(createKubernetesProvider({ forceDeleteAfterMs: 2_000 }));
  if (process.env.SKYDECK_TEST_VERBOSE) {
    ops.progress = (l) => console.error(`[progress] ${l}`);
    ops.log = (l) => console.error(`[log] ${l}`);
  }
  return ops;
}
