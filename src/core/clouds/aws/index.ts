// The AWS cloud, loaded on first use: the extension require()s this module (or its bundle,
// dist/clouds/aws.js) only when a task or command needs aws, so activation never loads the SDK.
import type { Provider } from '../provider';
import { AwsProvider } from './awsProvider';
import type { AwsProviderOptions } from './options';

export type { AwsProviderOptions, AwsCredentials } from './options';
export { checkAws, type AwsCheck } from './check';
export { AwsProvider } from './awsProvider';
export { toProviderError, classifyAwsError } from './errors';
export { keyPairName, ensureLocalKey } from './keys';
export { resolveAwsKeys, type SharedAwsKeys } from './sharedKeys';

export function createAwsProvider(opts: AwsProviderOptions = {}): Provider & AwsProvider {
  return new AwsProvider(opts);
}
