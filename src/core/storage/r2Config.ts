// The user's R2 access, where SkyPilot keeps it (sky/adaptors/cloudflare.py: R2_CREDENTIALS_PATH,
// R2_PROFILE_NAME, ACCOUNT_ID_PATH): an AWS-style credentials file ~/.cloudflare/r2.credentials
// with a profile [r2], and the Cloudflare account id alone in ~/.cloudflare/accountid. The
// endpoint follows from the id: https://<id>.r2.cloudflarestorage.com.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StorageError } from './errors';

export interface R2Config {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  accountId: string;
}

export const R2_PROFILE = 'r2';

export function defaultCloudflareDir(): string {
  return path.join(os.homedir(), '.cloudflare');
}

export function r2Endpoint(accountId: string): string {
  return `https://${accountId}.r2.cloudflarestorage.com`;
}

/** Reads both files; a missing or unusable one is a StorageError naming it and how to make it. */
export function readR2Config(label: string, dir = defaultCloudflareDir()): R2Config {
  const credFile = path.join(dir, 'r2.credentials');
  const idFile = path.join(dir, 'accountid');
  const makeCreds = `create an R2 API token (Cloudflare dashboard, R2, Manage API tokens) and run: AWS_SHARED_CREDENTIALS_FILE=${credFile} aws configure --profile ${R2_PROFILE}`;
  const makeId = `write your Cloudflare account id (32 hex digits, on the R2 overview page) into it: echo <ACCOUNT_ID> > ${idFile}`;
  const creds = readSmall(label, credFile, makeCreds);
  const profile = iniSection(creds, R2_PROFILE);
  if (!profile) throw new StorageError('no-credentials', label, `${credFile} has no [${R2_PROFILE}] profile`, `Add it: ${makeCreds}.`);
  const accessKeyId = profile.aws_access_key_id;
  const secretAccessKey = profile.aws_secret_access_key;
  if (!accessKeyId || !secretAccessKey) {
    throw new StorageError('no-credentials', label, `the [${R2_PROFILE}] profile in ${credFile} lacks aws_access_key_id or aws_secret_access_key`, `Fill it in: ${makeCreds}.`);
  }
  const accountId = readSmall(label, idFile, makeId).trim();
  if (!/^[0-9a-f]{32}$/.test(accountId)) {
    throw new StorageError('config', label, `${idFile} does not hold a Cloudflare account id (32 lowercase hex digits)`, `Replace its contents: ${makeId}.`);
  }
  return { accessKeyId, secretAccessKey, accountId, ...(profile.aws_session_token ? { sessionToken: profile.aws_session_token } : {}) };
}

function readSmall(label: string, file: string, how: string): string {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > 64 * 1024) throw new Error('not a small regular file');
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
    throw new StorageError('no-credentials', label, missing ? `${file} does not exist` : `${file} could not be read (${(e as Error).message})`, `To give R2 access, ${how}.`);
  }
}

/** The key = value pairs of one [section] of an INI file (as the AWS CLI writes credentials). */
export function iniSection(text: string, name: string): Record<string, string> | undefined {
  let current: string | undefined;
  let out: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (head) {
      current = head[1];
      if (current === name) out ??= {};
      continue;
    }
    const kv = /^([^=]+?)\s*=\s*(.*)$/.exec(line);
    if (kv && current === name && out) out[kv[1].toLowerCase()] = kv[2];
  }
  return out;
}
