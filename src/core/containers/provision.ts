import type { Transport } from '../transport';
import { scriptLines } from './scriptLines';
import { NODE_SCRIPT, REAPER } from './nodeScript';
import { authStdin, redactAuth, type RegistryAuth } from './registryAuth';
import type { ContainerHandle } from './image';

/** The runtimes tried on a node, in order (both take the same commands used here). */
export const DEFAULT_RUNTIMES = ['podman', 'docker'];

export interface ContainerPlan {
  image: string;
  name: string;
  uid: string;
  /** Host paths bind-mounted at the same path (the local cloud's cluster directory). */
  binds: string[];
  gpu: boolean;
  auth?: RegistryAuth;
  runtimes?: string[];
  /** Where the node keeps what it learnt about its runtime (unset: the node's ~/.skydeck). */
  hintDir?: string;
}

/** A node's container could not be readied: `message` names the node, the cause and the fix. */
export class ContainerError extends Error {
  constructor(message: string, readonly kind: string) {
    super(message);
  }
}

const FIX: Record<string, string> = {
  'no-runtime': 'install one there: on Debian/Ubuntu "sudo apt-get install -y podman" (or docker.io), then launch again',
  runtime: 'see the runtime\'s message above; as this user, rootless podman needs the uidmap package (newuidmap) and ranges in /etc/subuid and /etc/subgid; docker needs the user in the docker group (or run the pool as a user that may use the runtime)',
  login: 'check SKYPILOT_DOCKER_USERNAME, SKYPILOT_DOCKER_PASSWORD and SKYPILOT_DOCKER_SERVER',
  pull: 'check the image name and tag, that the node reaches the registry, the registry login (SKYPILOT_DOCKER_*), and free disk space',
  start: 'see the runtime\'s message above',
  image: 'use an image with python3 (3.8+, with its sqlite3 module), /bin/sh, tar and coreutils, or add them (e.g. RUN apt-get install -y python3 tar in a derived image)',
};

/**
 * Readies the container of one node over its host transport: finds the runtime, logs in,
 * pulls the image unless the node has it, starts the container (or finds it running) and
 * checks the image can run the agent. Progress lines go to `progress` as they come.
 */
export async function provisionContainer(host: Transport, plan: ContainerPlan, progress: (line: string) => void): Promise<ContainerHandle> {
  for (const b of plan.binds) if (b.includes(':') || !b.startsWith('/')) throw new ContainerError(`cannot bind-mount ${JSON.stringify(b)} into a container (a path with ":" or not absolute)`, 'start');
  let runtime = '';
  let error: { kind: string; text: string } | undefined;
  const onLine = (line: string) => {
    const [word, ...rest] = line.split(' ');
    const text = rest.join(' ');
    if (word === 'progress') progress(`${host.description}: ${text}`);
    else if (word === 'runtime' || word === 'ok') runtime = text;
    else if (word === 'error') error = { kind: rest[0], text: rest.slice(1).join(' ') };
  };
  const lines = scriptLines(onLine);
  const argv = [(plan.runtimes ?? DEFAULT_RUNTIMES).join(' '), plan.image, plan.name, plan.uid, plan.gpu ? 'gpu' : '', REAPER, plan.hintDir ?? '', ...plan.binds];
  const r = await host.exec(['/bin/sh', '-c', NODE_SCRIPT, 'sh', ...argv], {
    stdin: authStdin(plan.auth),
    onStdout: lines.onStdout,
  });
  lines.flush();
  if (r.code === 0 && runtime) return { runtime, name: plan.name, image: plan.image };
  const tail = redactAuth(r.stderr.toString(), plan.auth).trim().split('\n').slice(-6).join('\n');
  const kind = error?.kind ?? 'start';
  const what = error?.text ?? `the container script exited with ${r.code ?? r.signal}`;
  throw new ContainerError(`${host.description}: ${what}${tail ? `:\n${tail}` : ''}\n→ ${FIX[kind] ?? FIX.start}`, kind);
}

/** Removes the container and proves it gone (`container inspect` no longer finds it). */
// A launch that died before it knew the runtime recorded none: every candidate present is asked.
export async function removeContainer(host: Transport, c: ContainerHandle, runtimes = DEFAULT_RUNTIMES): Promise<string> {
  const script = 'N=$1; shift; for RT in "$@"; do command -v "$RT" >/dev/null 2>&1 || continue; ' +
    '"$RT" rm -f -t 2 "$N" >/dev/null 2>&1 || "$RT" rm -f "$N" >/dev/null 2>&1; ' +
    'if "$RT" container inspect "$N" >/dev/null 2>&1; then echo "container $N is still there ($RT container inspect finds it)" >&2; exit 1; fi; done';
  const r = await host.exec(['/bin/sh', '-c', script, 'sh', c.name, ...(c.runtime ? [c.runtime] : runtimes)]);
  if (r.code !== 0) throw new Error(`removing container ${c.name} on ${host.description} failed: ${r.stderr.toString().trim()}`);
  return `removed container ${c.name} on ${host.description} (${c.runtime || runtimes.join('/')} no longer lists it)`;
}
