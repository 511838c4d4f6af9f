// The user's AWS keys for a bucket mount on a machine without a VM identity (ssh pools, local),
// resolved by the SDK's own default chain (env, SSO, ~/.aws profiles, process, IMDS) so that
// whatever `aws s3 ls` would use is what the node gets. Only called after the user opted in.
import { defaultProvider } from '@aws-sdk/credential-provider-node';

export interface SharedAwsKeys {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export async function resolveAwsKeys(): Promise<SharedAwsKeys> {
  const c = await defaultProvider()();
  return { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, ...(c.sessionToken ? { sessionToken: c.sessionToken } : {}) };
}
