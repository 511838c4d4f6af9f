import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { GcpProviderOptions } from './options';

// Where gcloud and Application Default Credentials (ADC) live, read without the SDK or the
// network so "Check Clouds" can say exactly what is missing before any call. Never returns
// or logs secret material: only paths, the credential type and a client e-mail.

export function gcloudDir(opts: GcpProviderOptions = {}): string {
  const env = opts.env ?? process.env;
  if (opts.gcloudConfigDir) return opts.gcloudConfigDir;
  if (env.CLOUDSDK_CONFIG) return env.CLOUDSDK_CONFIG;
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'gcloud');
  return path.join(os.homedir(), '.config', 'gcloud');
}

/** The project of gcloud's active configuration ("gcloud config set project X"), if any. */
export function gcloudProject(dir: string): string | undefined {
  let active = 'default';
  try {
    active = fs.readFileSync(path.join(dir, 'active_config'), 'utf8').trim() || 'default';
  } catch {
    // No active_config file: gcloud uses the "default" configuration.
  }
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, 'configurations', `config_${active}`), 'utf8');
  } catch {
    return undefined;
  }
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const head = /^\[(.+)\]$/.exec(line);
    if (head) section = head[1];
    const kv = /^project\s*=\s*(\S+)/.exec(line);
    if (kv && section === 'core') return kv[1];
  }
  return undefined;
}

export interface AdcInfo {
  /** The credentials file used, or "metadata server" when none (only on GCE/GKE). */
  source: string;
  type?: string;
  /** Service-account e-mail (never a key). */
  account?: string;
  quotaProject?: string;
  /** A project named inside the file (service-account keys carry one). */
  project?: string;
}

/** The ADC file the SDK would read: GOOGLE_APPLICATION_CREDENTIALS, else gcloud's well-known file. */
export function findAdc(opts: GcpProviderOptions = {}): AdcInfo | undefined {
  const env = opts.env ?? process.env;
  const file = env.GOOGLE_APPLICATION_CREDENTIALS || path.join(gcloudDir(opts), 'application_default_credentials.json');
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const s = (k: string) => (typeof json[k] === 'string' ? (json[k] as string) : undefined);
  return { source: file, type: s('type'), account: s('client_email'), quotaProject: s('quota_project_id'), project: s('project_id') };
}

/** The project with no network: option, environment, gcloud config, then the ADC file. */
export function localProject(opts: GcpProviderOptions = {}): string | undefined {
  const env = opts.env ?? process.env;
  return opts.project || env.GOOGLE_CLOUD_PROJECT || env.GCLOUD_PROJECT || env.CLOUDSDK_CORE_PROJECT
    || gcloudProject(gcloudDir(opts)) || findAdc(opts)?.project || findAdc(opts)?.quotaProject;
}

export const ADC_FIX = 'gcloud auth application-default login';
export const PROJECT_FIX = 'gcloud config set project <PROJECT_ID>   (or export GOOGLE_CLOUD_PROJECT=<PROJECT_ID>)';

// GCP's project id rule (6-30 of a-z, 0-9, '-'; a letter first, no '-' last), with the
// legacy domain-scoped "example.com:id" form.
const PROJECT_ID = /^(?:[a-z0-9][-a-z0-9.]*[a-z0-9]:)?[a-z][-a-z0-9]{4,28}[a-z0-9]$/;

/** Why `project` is not a GCP project id, or undefined. */
export function projectIdProblem(project: string): string | undefined {
  if (PROJECT_ID.test(project)) return undefined;
  return `${JSON.stringify(project.slice(0, 80))} is not a GCP project id (6-30 lowercase letters, digits or '-', starting with a letter)`;
}
