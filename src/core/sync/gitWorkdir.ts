// `workdir: {url, ref}`: the repository is cloned on the node (not on this machine) into the
// job's workdir at `ref` — a branch, tag or commit — and brought to that ref again on every
// launch: fetched, checked out with local changes discarded, untracked files removed (ignored
// ones, e.g. build outputs, stay).
import type { Transport } from '../transport';
import { checkGitRef, gitCredentials, gitUrlKind, GitWorkdirError, type GitCredentials } from './gitAuth';
import { FETCH_FAILED, GIT_MISSING, gitScript, REF_NOT_FOUND } from './gitScript';

export { GitWorkdirError };

export interface GitWorkdirSpec {
  url: string;
  ref?: string;
}

export interface GitSyncOptions {
  /** This machine's environment (GIT_TOKEN, GIT_SSH_KEY_PATH); default process.env. */
  localEnv?: NodeJS.ProcessEnv;
  /** Where ~/.ssh is looked for; default the user's home. */
  home?: string;
  signal?: AbortSignal;
  /** Default 10 minutes. */
  timeoutMs?: number;
}

/** Launch-time checks, before anything is provisioned: the URL and ref forms (usage errors). */
export function checkGitWorkdir(spec: GitWorkdirSpec): void {
  gitUrlKind(spec.url);
  if (spec.ref !== undefined) checkGitRef(spec.ref);
}

/** Removes every secret from text bound for a message or log. */
function scrub(text: string, creds: GitCredentials): string {
  let out = text;
  if (creds.token) out = out.split(creds.token).join('***');
  return out.trim();
}

/** Clones or updates the repo at `workdir` (an absolute path or ~/…) on the node; returns the commit. */
export async function syncGitWorkdir(t: Transport, workdir: string, spec: GitWorkdirSpec,
  envs: Record<string, string | null | undefined> = {}, opts: GitSyncOptions = {}): Promise<{ commit: string }> {
  checkGitWorkdir(spec);
  const creds = gitCredentials(gitUrlKind(spec.url), envs, opts.localEnv, opts.home);
  const timer = AbortSignal.timeout(opts.timeoutMs ?? 600_000);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timer]) : timer;
  const stdin = `${creds.token ?? ''}\n${creds.sshKey ?? ''}`;
  const what = `workdir ${spec.url}${spec.ref === undefined ? '' : ` at ${spec.ref}`}`;
  let r;
  try {
    r = await t.execShell(gitScript(workdir, spec.url, spec.ref), { stdin, signal });
  } catch (e) {
    if (timer.aborted) throw new GitWorkdirError('failed', `${what}: the clone on ${t.description} took longer than ${Math.round((opts.timeoutMs ?? 600_000) / 1000)} s`);
    throw e;
  }
  const err = scrub(r.stderr.toString(), creds);
  if (r.code === GIT_MISSING) {
    throw new GitWorkdirError('failed', `${what}: git is not installed on ${t.description}; install it there (e.g. apt-get install git) or give a local workdir`);
  }
  if (r.code === REF_NOT_FOUND) {
    throw new GitWorkdirError('failed', `${what}: ref ${spec.ref ?? '(default branch)'} is not a branch, tag or commit of the repository${err ? ` (${err})` : ''}`);
  }
  if (r.code === FETCH_FAILED) {
    const hint = /auth|denied|401|403|could not read Username|Permission denied/i.test(err)
      ? (gitUrlKind(spec.url) === 'ssh' ? '; set GIT_SSH_KEY_PATH to a key the server accepts' : '; set GIT_TOKEN to a token that can read the repository')
      : '';
    throw new GitWorkdirError('failed', `${what}: fetching from ${t.description} failed: ${err}${hint}`);
  }
  const commit = r.stdout.toString().trim().split('\n').pop() ?? '';
  if (r.code !== 0 || !/^[0-9a-f]{40,64}$/.test(commit)) {
    throw new GitWorkdirError('failed', `${what}: checkout on ${t.description} failed: ${err || `exit ${r.code}`}`);
  }
  return { commit };
}
