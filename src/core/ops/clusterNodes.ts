// Multi-node clusters on reachable machines: the head's agent reaches its workers with a
// cluster-internal key Skydeck generates here (the user's key never leaves this machine) and
// with the workers' host keys as Skydeck verified them, so the head checks them strictly.
import type { AgentClient, AgentLocation } from '../jobs';
import { ensureAgent } from '../jobs';
import { generateEd25519 } from '../clouds/opensshKey';
import type { HostSpec } from '../clouds/hostSpec';
import type { ClusterRecord } from '../state';
import type { Transport } from '../transport';
import type { SshTransport } from '../transport/sshTransport';
import type { ContainerHandle } from '../containers/image';

/** The comment that marks the cluster's key in a worker's authorized_keys. */
export function clusterKeyComment(uid: string): string {
  return `skydeck-cluster:${uid}`;
}

/**
 * Where a cluster's agent lives on a worker: a directory of its own under ~/.skydeck, so that
 * tearing the cluster down never touches the node's ~/.skydeck, which may be another cluster's
 * head (its jobs.db) or hold other clusters' worker directories.
 */
export async function workerBase(t: Transport, uid: string): Promise<string> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(uid)) throw new Error(`bad cluster uid ${JSON.stringify(uid)}`);
  const r = await t.exec(['/bin/sh', '-c', 'printf %s "$HOME"']);
  const home = r.stdout.toString();
  if (r.code !== 0 || !home.startsWith('/')) throw new Error(`could not find the home directory on ${t.description}`);
  return `${home.replace(/\/+$/, '')}/.skydeck/workers/${uid}`;
}

/** The agent of this cluster on a worker (installed there if needed). */
export async function ensureWorkerAgent(t: Transport, uid: string): Promise<AgentLocation> {
  return ensureAgent(t, await workerBase(t, uid));
}

export interface WorkerNode {
  host: HostSpec;
  transport: Transport;
  /** A Kubernetes worker: its pod's name (reached by exec, not ssh: kubeWorkers.ts). */
  pod?: string;
  /** A container cluster's worker: `transport` runs in its container, this on the host. */
  hostTransport?: Transport;
  container?: ContainerHandle;
}

/**
 * Installs the agent on every worker, authorizes a fresh cluster key there, gives the head the
 * private key and the workers' host keys, and tells the head's agent about its workers.
 */
export async function setUpWorkers(row: ClusterRecord, head: AgentClient, workers: WorkerNode[]): Promise<void> {
  const pair = generateEd25519(clusterKeyComment(row.uid));
  const publicLine = pair.public.trim();
  const installed = await Promise.all(workers.map(async (w): Promise<{ loc: AgentLocation; known: string }> => {
    const loc = await ensureWorkerAgent(w.transport, row.uid);
    // The head's ssh lands on the worker's host (its sshd), so the key goes there.
    const host = w.hostTransport ?? w.transport;
    await run(host, AUTHORIZE, [publicLine], `authorizing the cluster key on ${w.host.address}`);
    const known = await (host as SshTransport).knownHostsLine();
    return { loc, known };
  }));
  const headLoc = await head.connect();
  await run(head.transport, WRITE_PRIVATE, [`${headLoc.base}/cluster_key`], 'installing the cluster key on the head', pair.private);
  await run(head.transport, WRITE_PRIVATE, [`${headLoc.base}/cluster_known_hosts`], 'pinning the workers\' host keys on the head',
    installed.map((i) => i.known).join('\n') + '\n');
  await head.configure({
    node_ips: [row.head_address ?? '127.0.0.1', ...workers.map((w) => w.host.address)],
    workers: workers.map((w, i) => ({
      address: w.host.address, port: w.host.port, user: w.host.user,
      python: installed[i].loc.python, agent: installed[i].loc.entry, base: installed[i].loc.base,
      ...(w.container ? { container: { runtime: w.container.runtime, name: w.container.name } } : {}),
    })),
  });
}

/** Undoes setUpWorkers on one worker: the key line goes, then this cluster's directory. */
export async function tearDownWorker(row: ClusterRecord, w: WorkerNode): Promise<void> {
  await run(w.hostTransport ?? w.transport, UNAUTHORIZE, [clusterKeyComment(row.uid)], `removing the cluster key from ${w.host.address}`);
  // A container worker's directory is in its container, which the down removes next.
  if (w.container) return;
  const base = await workerBase(w.transport, row.uid);
  await run(w.transport, REMOVE_BASE, [base], `removing the cluster's directory on ${w.host.address}`);
}

// Values arrive as positional parameters, never pasted into the script.
const AUTHORIZE =
  'umask 077; mkdir -p "$HOME/.ssh" && touch "$HOME/.ssh/authorized_keys" && ' +
  '{ grep -qxF -- "$1" "$HOME/.ssh/authorized_keys" || printf "%s\\n" "$1" >> "$HOME/.ssh/authorized_keys"; }';
// Drops exactly the lines Skydeck added: three fields, the last one equal to the comment (a
// substring match would also take skydeck-cluster:<uid>0 or a user's key that mentions it).
// The new file is written beside the old one and moved over it only when awk succeeded, so
// a failure (disk full, unreadable file) leaves authorized_keys as it was.
const UNAUTHORIZE =
  'set -e; umask 077; f="$HOME/.ssh/authorized_keys"; [ -e "$f" ] || exit 0; ' +
  'if [ -L "$f" ]; then f=$(readlink -f -- "$f"); fi; t="$f.skydeck-tmp.$$"; ' +
  'if ! C="$1" awk \'!(NF == 3 && $3 == ENVIRON["C"])\' "$f" > "$t"; then rm -f "$t"; echo "could not rewrite $f" >&2; exit 1; fi; ' +
  'mv -f "$t" "$f"';
// The cluster's own worker directory, then its parents only if nothing else is left in them.
const REMOVE_BASE = 'rm -rf -- "$1" && { rmdir -- "${1%/*}" "${1%/*/*}" 2>/dev/null || true; }';
const WRITE_PRIVATE = 'umask 077; cat > "$1.tmp" && mv -f "$1.tmp" "$1"';

async function run(t: Transport, script: string, args: string[], what: string, stdin?: string): Promise<void> {
  const r = await t.exec(['/bin/sh', '-c', script, 'sh', ...args], stdin !== undefined ? { stdin } : {});
  if (r.code !== 0) throw new Error(`${what} failed on ${t.description}: ${r.stderr.toString().trim() || `exit ${r.code}`}`);
}
