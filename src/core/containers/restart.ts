// A container stopped under a cluster (its node rebooted, the runtime restarted, someone ran
// `podman stop`) is started again by the next command that finds it stopped. Its filesystem
// and bind mounts outlive the stop, so the agent's base is as it was; the agent marks the jobs
// that were running FAILED_DRIVER (their container restarted: agent/README.md, "Containers").
import type { ExecResult, Transport } from '../transport';
import type { ContainerHandle } from './image';

/** What `<runtime> exec` says of a container that exists but is not running (podman, docker). */
const NOT_RUNNING = /container state improper|is not running|cannot exec in a stopped/i;

/** What it says of a container that does not exist (any more). */
const GONE = /no such container|no container with name or id/i;

/** Did this exec fail because the container was removed (outside Skydeck)? */
export function goneContainer(r: ExecResult): boolean {
  return r.code !== 0 && r.stdout.length === 0 && GONE.test(r.stderr.toString());
}

/** Did this exec fail only because the container is stopped? */
export function stoppedContainer(r: ExecResult): boolean {
  return r.code !== 0 && r.stdout.length === 0 && NOT_RUNNING.test(r.stderr.toString());
}

// Starts the container unless it runs, then waits (5 s at most) until the runtime says it does.
const START = 'RT=$1 N=$2; state=$("$RT" container inspect --format "{{.State.Running}}" "$N" 2>&1) || ' +
  '{ echo "container $N is gone from $(uname -n) ($RT container inspect: $state)" >&2; exit 3; }; ' +
  '[ "$state" = true ] && exit 0; "$RT" start "$N" >/dev/null || exit 4; i=0; ' +
  'while [ "$("$RT" container inspect --format "{{.State.Running}}" "$N" 2>/dev/null)" != true ]; do ' +
  'i=$((i+1)); [ $i -ge 50 ] && { "$RT" logs --tail 5 "$N" >&2; echo "container $N exited right after its start" >&2; exit 5; }; sleep 0.1; done; echo started';

/**
 * Starts a stopped container on its host. Resolves to true when this call started it (false
 * when it already ran); rejects, naming the node and the fix, when it cannot be started.
 */
export function goneError(host: Transport, c: ContainerHandle): Error {
  return new Error(`the cluster's container ${c.name} is gone from ${host.description} (removed outside Skydeck): its jobs and agent state went with it\n` +
    '→ down the cluster and launch it again');
}

export async function restartContainer(host: Transport, c: ContainerHandle): Promise<boolean> {
  const r = await host.exec(['/bin/sh', '-c', START, 'sh', c.runtime, c.name]);
  if (r.code === 3) throw goneError(host, c);
  if (r.code !== 0) {
    const why = r.stderr.toString().trim().split('\n').slice(-6).join('\n');
    throw new Error(`the cluster's container ${c.name} on ${host.description} is stopped and could not be started again: ${why}\n` +
      '→ down the cluster and launch it again');
  }
  return r.stdout.toString().includes('started');
}
