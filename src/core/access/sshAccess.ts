// How a user reaches a cluster's head with their own OpenSSH client: the command line to copy
// and the ssh_config block Remote-SSH reads. Both pin Skydeck's known_hosts with strict checking,
// so the system client verifies the same host keys Skydeck accepted.
import type { HostSpec } from '../clouds/hostSpec';
import type { ClusterRecord } from '../state';
import { shellQuote } from '../transport/shellQuote';
import { shellCommand } from '../transport/sshShell';
import { readHandle } from '../ops/clusterHandle';
import { OpsError } from '../ops/errors';
import { checkClusterName } from '../ops/clusterNames';

export interface SshAccess {
  cluster: string;
  /** The ssh_config Host alias, e.g. "skydeck-train". */
  alias: string;
  head: HostSpec;
  /** Skydeck's known_hosts first, then the user's own. */
  knownHostsFiles: string[];
  /** The task workdir on the head ("" when not known yet); in `container` when there is one. */
  workdir: string;
  /** `image_id: docker:…`: the jobs and the workdir live in this container on the head. */
  container?: { runtime: string; name: string };
}

/** The Host alias; refuses a name that is not a valid cluster name (it goes into ssh_config). */
export function sshAlias(cluster: string): string {
  checkClusterName(cluster);
  return `skydeck-${cluster}`;
}

/** The head of an ssh-reachable cluster; a usage error for clusters on this machine. */
export function sshAccessOf(row: ClusterRecord, knownHostsFiles: string[]): SshAccess {
  if (row.provider === 'local') {
    throw new OpsError('usage', `${row.name} runs on this machine (local cloud): there is no SSH host to connect to; use Open SSH Terminal for a shell in its workdir`);
  }
  const handle = readHandle(row);
  if (row.provider === 'kubernetes' || handle.kube) {
    // Pods run no sshd: Skydeck reaches them through the API server's exec stream only.
    const pod = handle.kube?.pods[0];
    const kubectl = pod ? `"kubectl --context ${handle.kube!.context} exec -it ${pod} -n ${handle.kube!.namespace} -c ${handle.kube!.container} -- bash"` : 'kubectl exec';
    throw new OpsError('usage', `${row.name} runs on Kubernetes, whose pods run no SSH server, so there is no SSH host for Remote-SSH or an ssh command; use Open SSH Terminal (a shell in the head pod through the API server) or ${kubectl}`);
  }
  const head = handle.hosts[0];
  if (!head) throw new OpsError('failed', `${row.name} has no head host recorded yet (status ${row.status})`);
  const c = handle.container;
  return { cluster: row.name, alias: sshAlias(row.name), head, knownHostsFiles, workdir: handle.workdir, ...(c ? { container: { runtime: c.runtime, name: c.name } } : {}) };
}

function hostOptions(h: HostSpec, knownHostsFiles: string[]): string[] {
  const argv = ['-p', String(h.port)];
  if (h.identityFile) argv.push('-i', sshTokenSafe(h.identityFile), '-o', 'IdentitiesOnly=yes');
  argv.push('-o', `UserKnownHostsFile=${knownHostsList(knownHostsFiles)}`, '-o', 'StrictHostKeyChecking=yes');
  return argv;
}

/** argv for OpenSSH's ssh; a jump host gets its own key and known_hosts through ProxyCommand. */
export function sshArgv(a: SshAccess): string[] {
  const argv = ['ssh', ...hostOptions(a.head, a.knownHostsFiles)];
  const j = a.head.proxyJump;
  if (j) {
    const inner = ['ssh', ...hostOptions(j, a.knownHostsFiles), '-W', '%h:%p', `${j.user}@${j.address}`];
    argv.push('-o', `ProxyCommand=${inner.map(shellQuote).join(' ')}`);
  }
  argv.push(`${a.head.user}@${a.head.address}`);
  return argv;
}

/** The command line to paste into a POSIX shell. */
export function sshCommandLine(a: SshAccess): string {
  return sshArgv(a).map(shellQuote).join(' ');
}

/** ssh_config blocks (head, and its jump host under "<alias>-jump"). */
export function sshConfigText(a: SshAccess, note: string): string {
  const block = (alias: string, h: HostSpec, jump?: string): string[] => [
    `Host ${alias}`,
    `  HostName ${configValue(h.address)}`,
    `  Port ${h.port}`,
    `  User ${configValue(h.user)}`,
    ...(h.identityFile ? [`  IdentityFile ${configValue(sshTokenSafe(h.identityFile))}`, '  IdentitiesOnly yes'] : []),
    `  UserKnownHostsFile ${knownHostsList(a.knownHostsFiles)}`,
    '  StrictHostKeyChecking yes',
    ...(jump ? [`  ProxyJump ${jump}`] : []),
  ];
  const lines = [`# ${note}`];
  const j = a.head.proxyJump;
  if (j) lines.push(...block(`${a.alias}-jump`, j), '');
  lines.push(...block(a.alias, a.head, j ? `${a.alias}-jump` : undefined));
  if (a.container) {
    // A second alias whose login lands in the container, in the workdir (as Open SSH Terminal
    // does): for `ssh` in a terminal. Remote-SSH windows use the first (the node itself).
    const inner = shellCommand(a.workdir || undefined, a.container);
    if (/[\n\r]/.test(inner)) throw new OpsError('usage', 'cannot write the container command into an ssh config file: it holds a newline');
    lines.push('', `# inside container ${a.container.name} (ssh ${containerAlias(a)}); ${a.alias} is the node, outside it`);
    lines.push(...block(containerAlias(a), a.head, j ? `${a.alias}-jump` : undefined), '  RequestTTY yes', `  RemoteCommand ${sshTokenSafe(inner)}`);
  }
  return lines.join('\n') + '\n';
}

/** The Host alias whose login lands inside the cluster's container. */
export function containerAlias(a: SshAccess): string {
  return `${a.alias}-container`;
}

function knownHostsList(files: string[]): string {
  return files.map((f) => configValue(sshTokenSafe(f))).join(' ');
}

/** OpenSSH expands %-tokens in file options: a literal % is written %%. */
function sshTokenSafe(p: string): string {
  return p.replace(/%/g, '%%');
}

/** ssh_config values: double quotes around anything with spaces; a quote or newline cannot be written. */
function configValue(v: string): string {
  if (/["\n\r]/.test(v)) throw new OpsError('usage', `cannot write ${JSON.stringify(v)} into an ssh config file: it holds a quote or a newline`);
  return /[\s#]/.test(v) ? `"${v}"` : v;
}
