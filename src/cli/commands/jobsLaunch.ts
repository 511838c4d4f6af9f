import * as fs from 'node:fs';
import { formatDiagnostic, parseTaskFile } from '../../core/task';
import { splitPipeline } from '../../core/managed';
import type { OpsContext } from '../../core/ops';
import { UsageError, type ParsedArgs } from '../args';
import { EXIT, type CliIO } from '../io';
import { parseEnvFlags, readEnvFile } from '../envFlags';
import { checkTasksForController, managedClient } from '../controllerHome';
import { carriedLines } from '../../core/managed/carryFiles';
import { followManagedJob } from './jobsLogs';

/** `jobs launch`: validates the YAML (positions on error), records the job, makes sure a controller runs. */
export async function jobsLaunch(io: CliIO, ctx: OpsContext, rest: string[], flags: ParsedArgs['flags']): Promise<number> {
  const [file, ...extra] = rest;
  if (!file || extra.length) throw new UsageError('jobs launch takes exactly one task YAML');
  const fromFile = flags['env-file'] !== undefined ? readEnvFile(String(flags['env-file'])) : {};
  const secrets = parseEnvFlags(flags.secret as string[] | undefined, '--secret');
  // The controller relaunches the job after a preemption, maybe hours later, so it keeps every
  // value (secrets too) in its own store, as the editor's Launch as Managed Job does.
  const envs = { ...fromFile, ...parseEnvFlags(flags.env as string[] | undefined), ...secrets };
  const parsed = await parseTaskFile(file, { env: envs });
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  for (const d of errors) io.err(`${formatDiagnostic(d)}\n`);
  if (!parsed.ok) return EXIT.usage;
  const pipeline = splitPipeline(fs.readFileSync(file, 'utf8'));
  if (pipeline.problem) throw new UsageError(pipeline.problem);
  if (!pipeline.tasks.length) throw new UsageError(`${file} has no task in it`);
  const name = (flags.name as string | undefined) ?? pipeline.name;
  // Before a controller VM is started for it: a task its cloud's controller would refuse.
  checkTasksForController(pipeline.tasks, envs);
  const what = pipeline.tasks.length > 1 ? `a pipeline of ${pipeline.tasks.length} tasks` : 'one task';
  const carried = carriedLines(pipeline.tasks, envs, process.cwd());
  if (carried.length) io.err(`Copied to the controller with the job (it runs these copies, also after a recovery):\n${carried.map((l) => `  ${l}\n`).join('')}`);
  if (!flags.yes && io.ask) {
    const a = await io.ask(`Launch managed job ${name ?? '(unnamed)'} (${what}), each task on its own new cluster? [y/N] `);
    if (!/^y(es)?$/i.test(a.trim())) {
      io.err('Not launched.\n');
      return EXIT.failed;
    }
  }
  const client = await managedClient(ctx, { copyCredentials: !!flags['copy-credentials'] });
  const { id, controller } = await client.submit({ tasks: pipeline.tasks, name, envs, base: process.cwd() }).finally(() => client.close());
  io.err(`Managed job ${id} submitted (${what}). Controller on ${controller.where}: ${controller.detail}.\n`);
  io.out(`${id}\n`);
  if (flags['detach-run']) return EXIT.ok;
  return followManagedJob(io, ctx, id);
}
