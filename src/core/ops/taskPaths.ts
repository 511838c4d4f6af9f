import { describeFileMount, type Task } from '../task';
import { localPath } from './syncFiles';

// The local paths a task would upload, resolved against the folder a launch resolves them from
// (TaskInput.pathBase): what the dry run lists and what the editor shows before a launch.

/** One line per upload or fetch: "workdir /abs/path → ~/sky_workdir", "file_mounts /abs → /dst", ... */
export function syncPlanLines(task: Task, dir: string): string[] {
  const out: string[] = [];
  if (typeof task.workdir === 'string') out.push(`workdir ${localPath(task.workdir, dir)} → ~/sky_workdir`);
  else if (task.workdir) out.push(`workdir: git ${task.workdir.url}${task.workdir.ref ? `@${task.workdir.ref}` : ''} cloned to ~/sky_workdir`);
  for (const [dst, m] of Object.entries(task.fileMounts)) {
    out.push(m.kind === 'copy' ? `file_mounts ${localPath(m.source, dir)} → ${dst}` : `file_mounts ${dst}: ${describeFileMount(m)}`);
  }
  return out;
}

/** Only the uploads from this machine (workdir and local file_mounts sources), resolved. */
export function localUploadLines(task: Task, dir: string): string[] {
  const out: string[] = [];
  if (typeof task.workdir === 'string') out.push(`workdir ${localPath(task.workdir, dir)} → ~/sky_workdir`);
  for (const [dst, m] of Object.entries(task.fileMounts)) if (m.kind === 'copy') out.push(`${localPath(m.source, dir)} → ${dst}`);
  return out;
}
