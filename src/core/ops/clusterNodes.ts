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

/** The comment that marks the cluster's key in a worker's authorized_keys. */
export function clusterKeyComment(uid: string): string {
  return `skydeck-cluster:${uid}`;
}

export interface WorkerNode {
  host: HostSpec;
  transport: Transport;
}

/**
 * Installs the agent on every worker, authorizes a fresh cluster key there, gives the head the
 * private key and the workers' host keys, and tells the head's agent about its workers.
 */
export async function setUpWorkers(row: ClusterRecord, head: AgentClient, workers: WorkerNode[]): Promise<void> {
  const pair = generateEd25519(clusterKeyComment(row.uid));
  const publicLine = pair.public.trim();
  const installed = await Promise.all(workers.map(async (w): Promise<{ loc: AgentLocation; known: string }> => {
    const loc = await ensureAgent(w.transport);
    await run(w.transport, AUTHORIZE, [publicLine], `authorizing the cluster key on ${w.host.address}`);
    const known = await (w.transport as SshTransport).knownHostsLine();
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
    })),
  });
}

/** Undoes setUpWorkers on one worker: the key line goes, then Skydeck's directory. */
export async function tearDownWorker(row: ClusterRecord, w: WorkerNode): Promise<void> {
  await run(w.transport, UNAUTHORIZE, [clusterKeyComment(row.uid)], `removing the cluster key from ${w.host.address}`);
  await run(w.transport, 'rm -rf -- "$HOME/.skydeck"', [], `removing Skydeck's directory on ${w.host.address}`);
}

// Values arrive as positional parameters, never pasted into the script.
const AUTHORIZE =
  'umask 077; mkdir -p "$HOME/.ssh" && touch "$HOME/.ssh/authorized_keys" && ' +
  '{ grep -qxF -- "$1" "$HOME/.ssh/authorized_keys" || printf "%s\\n" "$1" >> "$HOME/.ssh/authorized_keys"; }';
const UNAUTHORIZE =
  'f="$HOME/.ssh/authorized_keys"; [ -f "$f" ] || exit 0; ' +
  'grep -vF -- " $1" "$f" > "$f.skydeck-tmp" || true; cat "$f.skydeck-tmp" > "$f" && rm -f "$f.skydeck-tmp"';
const WRITE_PRIVATE = 'umask 077; cat > "$1.tmp" && mv -f "$1.tmp" "$1"';

async function run(t: Transport, script: string, args: string[], what: string, stdin?: string): Promise<void> {
  const r = await t.exec(['/bin/sh', '-c', script, 'sh', ...args], stdin !== undefined ? { stdin } : {});
  if (r.code !== 0) throw new Error(`${what} failed on ${t.description}: ${r.stderr.toString().trim() || `exit ${r.code}`}`);
}
