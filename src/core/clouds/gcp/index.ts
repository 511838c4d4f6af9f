// The GCP cloud, loaded on first use: the extension require()s this module (or its bundle,
// dist/clouds/gcp.js) only when a task or command needs gcp, so activation never loads the SDK.
import type { Provider } from '../provider';
import { GcpProvider } from './gcpProvider';
import type { GcpProviderOptions } from './options';

export type { GcpProviderOptions } from './options';
export { checkGcp, checkGcpLocal, type GcpCheck } from './check';
export { GcpProvider } from './gcpProvider';
export { toGcpError, classifyGcpError, operationError } from './errors';
export { toLabels, labelValue, labelKey } from './labels';

export function createGcpProvider(opts: GcpProviderOptions = {}): Provider & GcpProvider {
  return new GcpProvider(opts);
}
