import * as path from 'node:path';
import { formatDiagnostic, parseTaskFile, printable, resolveEnvs, type Task } from '../task';
import { OpsError } from './errors';

export interface LoadedTask {
  task: Task;
  envs: Record<string, string>;
  /** Kept apart from envs: the agent stores their names, never their values (agent/README.md). */
  secrets: Record<string, string>;
  dir: string;
  warnings: string[];
}

/** Parses a task file for running: any error, a pipeline or a missing env stops here. */
export async function loadTaskForRun(file: string, envOverrides: Record<string, string>): Promise<LoadedTask> {
  const parsed = await parseTaskFile(file, { env: envOverrides });
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new OpsError('usage', errors.map(formatDiagnostic).join('\n'));
  if (parsed.tasks.length === 0) throw new OpsError('usage', printable(`${file}: the file holds no task`));
  if (parsed.tasks.length > 1) {
    const second = parsed.diagnostics.find((d) => d.path === '' && /pipeline/i.test(d.message));
    const where = second ? `${second.file}:${second.line}:${second.col}` : file;
    throw new OpsError('unavailable', printable(`${where}: this file is a pipeline (${parsed.tasks.length} tasks); running pipelines is not available yet`));
  }
  const task = parsed.tasks[0];
  if (!task.run && !task.setup) throw new OpsError('usage', printable(`${file}: the task has neither "run" nor "setup": nothing to do`));
  const { envs, missing } = resolveEnvs(task, envOverrides);
  if (missing.length) {
    throw new OpsError(
      'usage',
      `${file}: ${missing.map((m) => `"${m}"`).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no value; ` +
        `give ${missing.length === 1 ? 'it' : 'them'} at launch: ${missing.map((m) => `--env ${m}=VALUE`).join(' ')}`,
    );
  }
  const secrets: Record<string, string> = {};
  for (const [k, v] of Object.entries(task.secrets)) {
    if (v === null && !(k in envOverrides)) throw new OpsError('usage', printable(`${file}: secret "${k}" has no value; give it with --env ${k}=VALUE`));
    secrets[k] = envOverrides[k] ?? (v as string);
    delete envs[k];
  }
  return {
    task,
    envs,
    secrets,
    dir: path.dirname(path.resolve(file)),
    warnings: parsed.diagnostics.filter((d) => d.severity === 'warning').map(formatDiagnostic),
  };
}
