// The real clouds for the extension and the CLI. Each provider (and with it its SDK) is built
// on first use of that cloud, once per process; naming the clouds loads nothing.
import type { Provider, ProviderRegistry } from './provider';

export const CLOUD_PROVIDERS = ['aws', 'gcp', 'azure', 'kubernetes'] as const;

export function cloudProviders(opts: { log?: (m: string) => void } = {}): ProviderRegistry {
  const built = new Map<string, Provider>();
  const build = (cloud: string): Provider | undefined => {
    switch (cloud) {
      case 'aws': {
        const { loadAws } = require('./aws/load') as typeof import('./aws/load');
        return loadAws().createAwsProvider({ log: opts.log });
      }
      case 'gcp': {
        const { loadGcp } = require('./gcp/load') as typeof import('./gcp/load');
        return loadGcp().createGcpProvider({ log: opts.log });
      }
      case 'azure': {
        const { loadAzure } = require('./azure/load') as typeof import('./azure/load');
        return loadAzure().createAzureProvider({ log: opts.log });
      }
      case 'kubernetes':
      case 'k8s': {
        const { loadKubernetes } = require('./kubernetes/load') as typeof import('./kubernetes/load');
        return loadKubernetes().createKubernetesProvider({ log: opts.log });
      }
      default:
        return undefined;
    }
  };
  return {
    clouds: CLOUD_PROVIDERS,
    get(cloud) {
      const c = cloud.toLowerCase();
      if (!built.has(c)) {
        const p = build(c);
        if (!p) return undefined;
        built.set(c, p);
      }
      return built.get(c);
    },
  };
}
