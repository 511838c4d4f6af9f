// The head's share of a launch or exec sync: workdir (uploaded or cloned), local file mounts,
// then bucket mounts. Workers get the same from multiNode.ts syncWorkers.
import type { AgentClient } from '../jobs';
import type { Task } from '../task';
import type { OpsContext } from './context';
import { attachBuckets } from './bucketAttach';
import { cloneWorkdir, localPath, syncFileMounts, syncStateOf, syncWorkdir } from './syncFiles';
import type { SyncExtras } from './syncExtras';

export async function syncAll(ctx: OpsContext, client: AgentClient, task: Task, dir: string, workdir: string, extras: SyncExtras = {}): Promise<void> {
  const { python, base } = await client.connect();
  if (typeof task.workdir === 'string') {
    ctx.progress(`Syncing workdir ${task.workdir}`);
    const s = await syncWorkdir(client.transport, python, localPath(task.workdir, dir), workdir, syncStateOf(ctx.workspaceRoot, base), extras.fast, extras.deferred);
    ctx.log(`workdir synced (${s.mode}): ${s.files} files, ${s.bytes} bytes sent, ${s.removed} removed, ${s.ignored} ignored`);
  } else if (task.workdir) {
    ctx.progress(`Cloning workdir ${task.workdir.url}${task.workdir.ref ? ` at ${task.workdir.ref}` : ''}`);
    ctx.log(`workdir at commit ${(await cloneWorkdir(client.transport, workdir, task.workdir, extras.gitEnvs ?? {})).commit}`);
  }
  if (Object.keys(task.fileMounts).length && !extras.fast) {
    ctx.progress('Syncing file mounts');
    await syncFileMounts(client.transport, python, task, dir);
  }
  // Buckets after the local files (SkyPilot's order); COPY lands before setup runs.
  const buckets = extras.buckets ?? [];
  if (buckets.length) await attachBuckets(ctx, { name: client.transport.description, transport: client.transport, stateBase: `${base}/storage` }, buckets);
}
