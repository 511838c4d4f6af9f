// `workdir: {url, ref}`: a git repository cloned on the node. The URL forms are SkyPilot's
// (sky/utils/git.py, read for the forms): https://host/owner/repo, ssh://[user@]host[:port]/path
// and scp-like [user@]host:path. The ref follows `git check-ref-format` closely enough that a
// branch, tag or commit passes and nothing can be read as an option or a revision expression.

import { Reporter, formatPath } from './diagnostics';
import { Dict } from './objects';
import { GitWorkdir } from './types';

const HTTP = /^https?:\/\/(?:[^@/\s]+@)?[^:/\s]+(?::\d+)?\/\S+$/;
const SSH = /^ssh:\/\/(?:[^@/\s]+@)?[^:/\s]+(?::\d+)?\/\S+$/;
const SCP = /^(?:[^@/\s]+@)?[^:/\s]+:[^\s]+$/;

/** Why `url` is not a git URL Skydeck can clone, or undefined. */
export function gitUrlProblem(url: string): string | undefined {
  if (/[\0-\x1f\x7f]/.test(url) || /\s/.test(url)) return 'contains white space or control characters';
  if (url.startsWith('-')) return 'starts with "-"';
  const lead = gitUrlOptionLike(url);
  if (lead) return lead;
  if (HTTP.test(url) || SSH.test(url)) return undefined;
  // "name::address" is git's remote-helper form (ext:: runs a command).
  if (!url.includes('://') && !url.includes('::') && SCP.test(url)) return undefined;
  return 'is not a git URL Skydeck can clone';
}

/**
 * A user or host part starting with "-" would reach ssh as an option (-oProxyCommand=… runs a
 * command); git refuses some of these itself, but not every git on every node, so they stop here.
 */
export function gitUrlOptionLike(url: string): string | undefined {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
  const authority = scheme ? url.slice(scheme[0].length).split('/')[0] : url.split(':')[0];
  const at = authority.lastIndexOf('@');
  const user = at < 0 ? '' : authority.slice(0, at);
  const host = authority.slice(at + 1);
  if (host.startsWith('-')) return 'has a host starting with "-" (it would be read as an ssh option)';
  if (user.startsWith('-')) return 'has a user name starting with "-" (it would be read as an ssh option)';
  return undefined;
}

/** Why `ref` cannot be a branch, tag or commit, or undefined. */
export function gitRefProblem(ref: string): string | undefined {
  if (ref === '') return 'is empty';
  if (/[\0-\x20\x7f]/.test(ref)) return 'contains a space or a control character';
  const bad = /[~^:?*[\\]/.exec(ref);
  if (bad) return `contains "${bad[0]}"`;
  if (ref.startsWith('-')) return 'starts with "-"';
  const part = ['..', '@{', '//'].find((p) => ref.includes(p));
  if (part) return `contains "${part}"`;
  const end = ['/', '.', '.lock'].find((e) => ref.endsWith(e));
  if (ref.startsWith('/') || end) return ref.startsWith('/') ? 'starts with "/"' : `ends with "${end}"`;
  if (ref === '@') return 'is "@"';
  return undefined;
}

/** The typed git workdir, or undefined after reporting what is wrong. */
export function gitWorkdir(value: Dict, r: Reporter): GitWorkdir | undefined {
  const url = value.url as string;
  const urlProblem = gitUrlProblem(url);
  if (urlProblem) {
    r.error(['workdir', 'url'], `${formatPath(['workdir', 'url'])} ${urlProblem}`,
      'write https://host/owner/repo(.git), ssh://git@host/owner/repo or git@host:owner/repo; for a local directory write workdir: <path>');
    return undefined;
  }
  if (typeof value.ref !== 'string') return { url };
  const refProblem = gitRefProblem(value.ref);
  if (refProblem) {
    r.error(['workdir', 'ref'], `${formatPath(['workdir', 'ref'])} ${refProblem}`, 'give a branch (main), a tag (v1.2.0) or a commit hash');
    return undefined;
  }
  return { url, ref: value.ref };
}
