// "Check Clouds": per cloud, usable or not, and exactly what to do when not. Each cloud's own
// check runs in parallel; a cloud SDK is loaded only here, when the user asks.
import { StorageError } from '../storage/errors';
import { defaultCloudflareDir, readR2Config } from '../storage/r2Config';
import { execFile } from 'node:child_process';
import type { PoolsResult } from './sshPools';

export interface CloudCheck {
  cloud: string;
  ok: boolean;
  /** What was found (region, project, pools…) or what is wrong. */
  detail: string;
  /** When not ok: the command to run or the setting to make. */
  fix?: string;
  /** Regions known to be usable (AWS: the configured one; GCP: those of the listed zones). */
  regions?: string[];
}

export interface CheckOptions {
  sshPools(): PoolsResult;
  /** Which clouds; default all. */
  only?: string[];
  /** Injected per cloud (tests); default: the real checks. */
  checks?: Partial<Record<string, () => Promise<CloudCheck>>>;
  /** A kubeconfig other than KUBECONFIG / ~/.kube/config (tests). */
  kubeconfig?: string;
}

export const CLOUDS = ['local', 'ssh', 'aws', 'gcp', 'azure', 'kubernetes'] as const;

export async function checkClouds(opts: CheckOptions): Promise<CloudCheck[]> {
  const wanted = (opts.only?.length ? opts.only : [...CLOUDS]).map((c) => c.toLowerCase());
  const real: Record<string, () => Promise<CloudCheck>> = {
    local: checkLocal,
    ssh: async () => checkSsh(opts.sshPools()),
    aws: checkAwsCloud,
    gcp: checkGcpCloud,
    azure: checkAzureCloud,
    kubernetes: () => checkKubeCloud(opts.kubeconfig),
  };
  return Promise.all(wanted.map(async (cloud): Promise<CloudCheck> => {
    const run = opts.checks?.[cloud] ?? real[cloud];
    if (!run) return { cloud, ok: false, detail: `unknown cloud "${cloud}"`, fix: `use one of ${CLOUDS.join(', ')}` };
    try {
      return await run();
    } catch (e) {
      return { cloud, ok: false, detail: `the check itself failed: ${(e as Error).message}` };
    }
  }));
}

async function checkLocal(): Promise<CloudCheck> {
  if (process.platform === 'win32') {
    return { cloud: 'local', ok: false, detail: 'the local cloud runs jobs with a POSIX shell and Python on this machine', fix: 'open this folder in WSL (Remote - WSL) and use Skydeck there' };
  }
  const python = await new Promise<string | undefined>((resolve) =>
    execFile('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { timeout: 10_000 }, (e, out) => resolve(e ? undefined : out.trim())));
  if (!python) return { cloud: 'local', ok: false, detail: 'python3 was not found on this machine', fix: 'install Python 3.8 or newer (the agent needs it)' };
  const [maj, min] = python.split('.').map(Number);
  if (maj < 3 || (maj === 3 && min < 8)) return { cloud: 'local', ok: false, detail: `python3 is ${python}`, fix: 'install Python 3.8 or newer' };
  return { cloud: 'local', ok: true, detail: `this machine (Python ${python})` };
}

export function checkSsh(p: PoolsResult): CloudCheck {
  if (p.errors.length) return { cloud: 'ssh', ok: false, detail: p.errors.join('; '), fix: 'fix ~/.skydeck/ssh_pools.yaml (or the skydeck.sshPools setting)' };
  if (!p.pools.length) {
    return { cloud: 'ssh', ok: false, detail: 'no SSH pools are configured', fix: 'list your machines in ~/.skydeck/ssh_pools.yaml, e.g. "mypool: {hosts: [user@10.0.0.5], identity_file: ~/.ssh/id_ed25519}"' };
  }
  return { cloud: 'ssh', ok: true, detail: p.pools.map((x) => `${x.name} (${x.hosts.length} host${x.hosts.length === 1 ? '' : 's'})`).join(', ') };
}

async function checkAwsCloud(): Promise<CloudCheck> {
  const { loadAws } = require('./aws/load') as typeof import('./aws/load');
  const r = await loadAws().checkAws();
  return r.ok
    ? { cloud: 'aws', ok: true, detail: `region ${r.region}${r.account ? `, account ${r.account}` : ''}, ${r.zones.length} zones`, regions: [r.region] }
    : { cloud: 'aws', ok: false, detail: r.reason, fix: r.fix };
}

async function checkGcpCloud(): Promise<CloudCheck> {
  const { loadGcp } = require('./gcp/load') as typeof import('./gcp/load');
  const r = await loadGcp().checkGcp();
  return r.ok
    ? {
      cloud: 'gcp', ok: true, detail: `project ${r.details.project} (${r.details.credentials}), ${r.details.zones.length} zones`,
      // Zones are "<region>-<letter>".
      regions: [...new Set(r.details.zones.map((z) => z.replace(/-[a-z]$/, '')))].sort(),
    }
    : { cloud: 'gcp', ok: false, detail: r.reason, fix: r.fix };
}

async function checkAzureCloud(): Promise<CloudCheck> {
  const { loadAzure } = require('./azure/load') as typeof import('./azure/load');
  const r = await loadAzure().checkAzure();
  return r.ok
    ? { cloud: 'azure', ok: true, detail: `subscription ${r.details.subscriptionId} (${r.details.credentials})` }
    : { cloud: 'azure', ok: false, detail: r.reason, fix: r.fix };
}

async function checkKubeCloud(kubeconfig?: string): Promise<CloudCheck> {
  const { loadKubernetes } = require('./kubernetes/load') as typeof import('./kubernetes/load');
  const { kubeCheckSummary } = require('./kubernetes/checkSummary') as typeof import('./kubernetes/checkSummary');
  try {
    return kubeCheckSummary(await loadKubernetes().checkContexts(kubeconfig));
  } catch (e) {
    const fix = (e as { hint?: unknown }).hint;
    return { cloud: 'kubernetes', ok: false, detail: (e as Error).message, ...(typeof fix === 'string' ? { fix } : {}) };
  }
}

/**
 * The line `check` adds about bucket credentials (issue 16: the user must see the opt-in's state).
 * With sharing on it also says whether R2's files are there, since r2:// mounts need them
 * everywhere (R2 has no VM identity): a missing file is named with how to make it.
 */
export function credentialSharingLine(on: boolean, cloudflareDir = defaultCloudflareDir()): string {
  return on
    ? `storage: credential sharing is ON (skydeck.storage.shareCredentials): bucket mounts on ssh/local nodes get your AWS keys; ${r2Status(cloudflareDir)}`
    : 'storage: credential sharing is off: bucket mounts on ssh/local nodes are refused; cloud nodes use their own identity (opt in: skydeck.storage.shareCredentials, or SKYDECK_SHARE_CREDENTIALS=1)';
}

/** Whether R2 mounts can get keys: both ~/.cloudflare files readable and well formed. Never the keys. */
function r2Status(dir: string): string {
  try {
    readR2Config('r2', dir);
    return `R2 credentials found (${dir}/r2.credentials and accountid)`;
  } catch (e) {
    if (!(e instanceof StorageError)) throw e;
    return `R2 credentials missing, so r2:// mounts will fail: ${e.why}. ${e.fix}`;
  }
}
