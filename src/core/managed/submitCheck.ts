import { parseTaskText } from '../task';
import { MAX_TASK_FILE_BYTES } from '../task/parse';

/** Each task is a fresh cluster launched after the one before: a longer pipeline is several jobs. */
export const MAX_PIPELINE_TASKS = 32;

/**
 * Every task of a managed job must parse as exactly one valid task (with the job's envs);
 * throws naming the first bad one. Returns the first task's name (the job's default name).
 * Checked wherever a job is submitted (this machine's CLI, a remote controller's request), so
 * nothing is recorded for a job that could never run.
 */
export function checkSubmit(tasks: string[], envs: Record<string, string>): string | undefined {
  if (!Array.isArray(tasks) || !tasks.length) throw new Error('a managed job needs at least one task');
  if (tasks.length > MAX_PIPELINE_TASKS) {
    throw new Error(`a managed pipeline may have at most ${MAX_PIPELINE_TASKS} tasks; this one has ${tasks.length}: split it into several managed jobs`);
  }
  const bytes = tasks.reduce((n, t) => n + (typeof t === 'string' ? Buffer.byteLength(t) : 0), 0);
  if (bytes > MAX_TASK_FILE_BYTES) throw new Error(`the managed job's tasks are ${bytes.toLocaleString('en-US')} bytes; at most ${MAX_TASK_FILE_BYTES.toLocaleString('en-US')} (4 MiB) are accepted`);
  let firstName: string | undefined;
  tasks.forEach((text, i) => {
    if (typeof text !== 'string') throw new Error(`task ${i + 1} of the managed job is not YAML text`);
    // A file read as UTF-8 turns bytes that are not UTF-8 into U+FFFD: refuse rather than run
    // a command other than the one written.
    const bad = text.indexOf('\uFFFD');
    if (bad >= 0) throw new Error(`task ${i + 1} of the managed job is not UTF-8 text (line ${text.slice(0, bad).split('\n').length} holds bytes that are not UTF-8); save the file as UTF-8`);
    const p = parseTaskText(text, `task ${i + 1}`, { env: envs });
    if (!p.ok || p.tasks.length !== 1) throw new Error(`task ${i + 1} of the managed job is not one valid task: ${p.diagnostics.map((d) => d.message).join('; ') || `${p.tasks.length} documents`}`);
    firstName ??= p.tasks[0].name;
  });
  return firstName;
}
