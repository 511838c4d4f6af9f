import { parseTaskText } from '../task';

/**
 * Every task of a managed job must parse as exactly one valid task (with the job's envs);
 * throws naming the first bad one. Returns the first task's name (the job's default name).
 */
export function checkSubmit(tasks: string[], envs: Record<string, string>): string | undefined {
  if (!tasks.length) throw new Error('a managed job needs at least one task');
  let firstName: string | undefined;
  tasks.forEach((text, i) => {
    const p = parseTaskText(text, `task ${i + 1}`, { env: envs });
    if (!p.ok || p.tasks.length !== 1) throw new Error(`task ${i + 1} of the managed job is not one valid task: ${p.diagnostics.map((d) => d.message).join('; ') || `${p.tasks.length} documents`}`);
    firstName ??= p.tasks[0].name;
  });
  return firstName;
}
