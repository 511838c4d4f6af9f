// The Azure cloud, loaded on first use: the extension require()s this module (or its bundle,
// dist/clouds/azure.js) only when a task or command needs azure, so activation never loads the SDK.
import type { Provider } from '../provider';
import { AzureProvider } from './azureProvider';
import type { AzureProviderOptions } from './options';

export type { AzureProviderOptions } from './options';
export { checkAzure, checkAzureLocal, type AzureCheck } from './check';
export { AzureProvider } from './azureProvider';
export { toAzureError, classifyAzureError } from './errors';
export { groupName } from './names';

export function createAzureProvider(opts: AzureProviderOptions = {}): Provider & AzureProvider {
  return new AzureProvider(opts);
}
