import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AzureProviderOptions } from './options';

// Where the subscription and credentials come from, read without the SDK or the network so
// "Check Clouds" can say what is missing before any call. Never returns secret material.

export function azureDir(opts: AzureProviderOptions = {}): string {
  const env = opts.env ?? process.env;
  return opts.azureConfigDir ?? env.AZURE_CONFIG_DIR ?? path.join(os.homedir(), '.azure');
}

interface CliProfile {
  subscriptions?: { id?: string; name?: string; isDefault?: boolean; user?: { name?: string } }[];
}

/** The Azure CLI's profile (azureProfile.json; the CLI writes it with a UTF-8 BOM). */
export function cliProfile(opts: AzureProviderOptions = {}): CliProfile | undefined {
  try {
    const text = fs.readFileSync(path.join(azureDir(opts), 'azureProfile.json'), 'utf8').replace(/^\uFEFF/, '');
    return JSON.parse(text) as CliProfile;
  } catch {
    return undefined;
  }
}

/** The subscription: option, AZURE_SUBSCRIPTION_ID, then the CLI's default ("az account set"). */
export function localSubscription(opts: AzureProviderOptions = {}): string | undefined {
  const env = opts.env ?? process.env;
  if (opts.subscriptionId) return opts.subscriptionId;
  if (env.AZURE_SUBSCRIPTION_ID) return env.AZURE_SUBSCRIPTION_ID;
  return cliProfile(opts)?.subscriptions?.find((s) => s.isDefault)?.id;
}

/** Which credential source DefaultAzureCredential will plausibly use, or undefined when none is visible. */
export function credentialSource(opts: AzureProviderOptions = {}): string | undefined {
  const env = opts.env ?? process.env;
  if (opts.credential) return 'injected';
  if (env.AZURE_CLIENT_ID && env.AZURE_TENANT_ID && (env.AZURE_CLIENT_SECRET || env.AZURE_CLIENT_CERTIFICATE_PATH)) return 'service principal (AZURE_CLIENT_ID)';
  if (env.AZURE_FEDERATED_TOKEN_FILE) return 'workload identity (AZURE_FEDERATED_TOKEN_FILE)';
  if (env.IDENTITY_ENDPOINT || env.MSI_ENDPOINT) return 'managed identity';
  const profile = cliProfile(opts);
  if (profile?.subscriptions?.length) {
    const user = profile.subscriptions.find((s) => s.isDefault)?.user?.name;
    return `Azure CLI${user ? ` (${user})` : ''}`;
  }
  return undefined;
}

export const LOGIN_FIX = 'az login';
export const SUBSCRIPTION_FIX = 'az account set --subscription <SUBSCRIPTION_ID>   (or export AZURE_SUBSCRIPTION_ID=<SUBSCRIPTION_ID>)';
