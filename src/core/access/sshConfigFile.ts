// The Skydeck-managed ssh_config files for Remote-SSH: one file per cluster under
// ~/.skydeck/ssh/config.d/, pulled into the user's ~/.ssh/config by a single Include line.
// One file per cluster (not one regenerated list) because several workspaces share the folder.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic } from '../state/atomicWrite';
import { sshAlias, sshConfigText, type SshAccess } from './sshAccess';
import { checkClusterName } from '../ops/clusterNames';
import { OpsError } from '../ops/errors';

export interface SshConfigPaths {
  /** Where the per-cluster files go. */
  dir: string;
  /** The user's OpenSSH client config. */
  userConfig: string;
}

export function defaultSshConfigPaths(home = os.homedir()): SshConfigPaths {
  return { dir: path.join(home, '.skydeck', 'ssh', 'config.d'), userConfig: path.join(home, '.ssh', 'config') };
}

/** The cluster's file; a name that is not a valid cluster name never becomes a path. */
export function clusterConfigFile(paths: SshConfigPaths, cluster: string): string {
  checkClusterName(cluster);
  return path.join(paths.dir, `skydeck-${cluster}.conf`);
}

/** Writes (replaces) the cluster's Host block; returns the file. */
export function writeClusterSshConfig(paths: SshConfigPaths, a: SshAccess, workspace: string): string {
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const file = clusterConfigFile(paths, a.cluster);
  if (a.alias !== sshAlias(a.cluster)) throw new OpsError('usage', `refusing to write Host ${JSON.stringify(a.alias)} for cluster ${a.cluster}`);
  const note = `Skydeck cluster ${a.cluster} (workspace ${workspace}). Written by Skydeck; rewritten on each connect, removed on down.`;
  writeFileAtomic(file, Buffer.from(sshConfigText(a, note.replace(/\n/g, ' '))));
  return file;
}

export function removeClusterSshConfig(paths: SshConfigPaths, cluster: string): void {
  fs.rmSync(clusterConfigFile(paths, cluster), { force: true });
}

/** The Include line for the managed files (a quoted path when it has spaces). */
export function includeLine(paths: SshConfigPaths): string {
  const glob = path.join(paths.dir, '*.conf');
  return `Include ${/\s/.test(glob) ? `"${glob}"` : glob}`;
}

export function hasInclude(text: string, paths: SshConfigPaths): boolean {
  const glob = path.join(paths.dir, '*.conf');
  return text.split(/\r?\n/).some((l) => {
    const m = /^\s*include\s+(.+?)\s*$/i.exec(l);
    return !!m && m[1].replace(/^"|"$/g, '') === glob;
  });
}

/**
 * Makes ~/.ssh/config include the managed files. The line goes first: an Include after a Host
 * line would only apply inside that Host. The user's own content is kept byte for byte.
 */
export function ensureSshInclude(paths: SshConfigPaths): 'present' | 'added' {
  let text = '';
  let mode = 0o600;
  try {
    text = fs.readFileSync(paths.userConfig, 'utf8');
    mode = fs.statSync(paths.userConfig).mode & 0o777;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    fs.mkdirSync(path.dirname(paths.userConfig), { recursive: true, mode: 0o700 });
  }
  if (hasInclude(text, paths)) return 'present';
  const head = `# Added by Skydeck: Host entries for Skydeck clusters (skydeck-<cluster>).\n${includeLine(paths)}\n\n`;
  writeFileAtomic(paths.userConfig, Buffer.from(head + text));
  fs.chmodSync(paths.userConfig, mode); // keep the user's permissions (ssh refuses group-writable configs)
  return 'added';
}
