import * as path from 'node:path';
import { formatDiagnostic, overrideTask, parseTaskFile, parseTaskText, printable, resolveEnvs, type ParseResult, type Task, type TaskOverrides } from '../task';
import { OpsError } from './errors';
import { sentValuesProblem } from './sentValues';

/** What a launch or exec runs: a task YAML or an inline command, with the command line's values. */
export interface TaskInput {
  /** The task YAML. Exactly one of taskFile and command. */
  taskFile?: string;
  /** An inline command (`sky launch -c dev 'python train.py'`): a task whose run is this. */
  command?: string;
  envs?: Record<string, string>;
  /** --secret values: they join the task's secrets (never its envs; see below). */
  secrets?: Record<string, string>;
  /** --gpus, --cpus, --infra, ...: applied to the parsed task (task/overrides.ts). */
  overrides?: TaskOverrides;
  /**
   * Where a relative `workdir` and relative local file_mounts sources resolve. SkyPilot takes
   * them from the directory `sky` runs in: the CLI passes its working directory, the editor the
   * workspace folder holding the YAML. Default: the YAML's folder (an inline command: the cwd).
   */
  pathBase?: string;
}

export interface LoadedTask {
  task: Task;
  envs: Record<string, string>;
  /** Kept apart from envs: the agent stores their names, never their values (agent/README.md). */
  secrets: Record<string, string>;
  /** The folder relative local paths resolve against (TaskInput.pathBase). */
  dir: string;
  warnings: string[];
}

/** A label for messages: the file, or the command as "<command>". */
export function inputLabel(input: TaskInput): string {
  return input.taskFile ?? '<command>';
}

async function parseInput(input: TaskInput, env: Record<string, string>): Promise<ParseResult> {
  if ((input.taskFile === undefined) === (input.command === undefined)) throw new OpsError('usage', 'give a task YAML or a command (not both)');
  if (input.command !== undefined) {
    if (!input.command.trim()) throw new OpsError('usage', 'the command is empty');
    return parseTaskText(JSON.stringify({ run: input.command }), '<command>', { env });
  }
  return parseTaskFile(input.taskFile!, { env });
}

/** Parses a task for running: any error, a pipeline or a missing env stops here. */
export async function loadTaskForRun(input: TaskInput): Promise<LoadedTask> {
  const envOverrides = input.envs ?? {};
  const file = inputLabel(input);
  const parsed = await parseInput(input, envOverrides);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new OpsError('usage', errors.map(formatDiagnostic).join('\n'));
  if (parsed.tasks.length === 0) throw new OpsError('usage', printable(`${file}: the file holds no task`));
  if (parsed.tasks.length > 1) {
    const second = parsed.diagnostics.find((d) => d.path === '' && /pipeline/i.test(d.message));
    const where = second ? `${second.file}:${second.line}:${second.col}` : file;
    throw new OpsError('unavailable', printable(`${where}: this file is a pipeline (${parsed.tasks.length} tasks); running pipelines is not available yet`));
  }
  const overridden = overrideTask(parsed.tasks[0], input.overrides ?? {}, envOverrides);
  if (!overridden.ok) throw new OpsError('usage', printable(overridden.errors.join('\n')));
  const task = overridden.task;
  if (!task.run && !task.setup) throw new OpsError('usage', printable(`${file}: the task has neither "run" nor "setup": nothing to do`));
  const { envs, missing } = resolveEnvs(task, envOverrides);
  if (missing.length) {
    throw new OpsError(
      'usage',
      `${file}: ${missing.map((m) => `"${m}"`).join(', ')} ${missing.length === 1 ? 'has' : 'have'} no value; ` +
        `give ${missing.length === 1 ? 'it' : 'them'} at launch: ${missing.map((m) => `--env ${m}=VALUE`).join(' ')}`,
    );
  }
  const given = input.secrets ?? {};
  const secrets: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...task.secrets, ...given })) {
    const value = Object.hasOwn(given, k) ? given[k] : Object.hasOwn(envOverrides, k) ? envOverrides[k] : v;
    if (value === null) throw new OpsError('usage', printable(`${file}: secret "${k}" has no value; give it with --secret ${k}=VALUE`));
    Object.defineProperty(secrets, k, { value, enumerable: true, writable: true, configurable: true });
    delete envs[k];
  }
  const tooMuch = sentValuesProblem(envs, secrets);
  if (tooMuch) throw new OpsError('usage', printable(`${file}: ${tooMuch}`));
  const dir = input.pathBase ?? (input.taskFile !== undefined ? path.dirname(path.resolve(input.taskFile)) : process.cwd());
  return { task, envs, secrets, dir: path.resolve(dir), warnings: parsed.diagnostics.filter((d) => d.severity === 'warning').map(formatDiagnostic) };
}
