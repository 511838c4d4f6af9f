import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatDiagnostic, parseTaskFile } from '../../core/task';
import { checkControllerPlace, controllerPlace, readControllerSetting, splitPipeline } from '../../core/managed';
import type { Command } from './command';
import { Dismissed, optionsArg, resolveTaskFile } from './support/pickers';
import { managedLogSource } from './support/managedLogSource';
import { notify } from '../notify';
import { askEnvs } from './support/askEnvs';
import { taskPathBase } from './support/taskPathBase';
import { carriedLines } from '../../core/managed/carryFiles';

function carriedText(tasks: string[], base: string): string {
  const lines = carriedLines(tasks, {}, base);
  return lines.length ? `\n\nCopied to the controller now (the job runs these copies, also after a recovery):\n${lines.join('\n')}` : '';
}

export interface LaunchManagedJobOptions {
  /** false skips the confirmation (tests); the default asks. */
  confirm: boolean;
  /** Default true: open the job's log panel once it is submitted. */
  showLogs: boolean;
}

/**
 * Launch as Managed Job: `skydeck jobs launch` from the editor. The controller runs the task
 * on its own cluster and recovers it when preempted. Arguments: (uri?, options?); with no
 * uri, the active YAML editor, else a pick over the workspace's task YAMLs.
 */
export const launchManagedJob: Command<'log' | 'logs' | 'managed' | 'controllerOps' | 'refresh' | 'launchValues' | 'workspaceRoot'> = {
  id: 'skydeck.launchManagedJob',
  async run(ctx, arg, options) {
    const opts = optionsArg<LaunchManagedJobOptions>(options);
    const uri = await resolveTaskFile(arg);
    const file = uri.fsPath;
    // Relative paths as a launch from this workspace reads them; their files go to the controller.
    const base = taskPathBase(uri);
    const parsed = await parseTaskFile(file);
    const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
    if (!parsed.ok) throw new Error(`${path.basename(file)} is not a valid task: ${errors.map(formatDiagnostic).slice(0, 3).join('; ')}`);
    const pipeline = splitPipeline(fs.readFileSync(file, 'utf8'));
    if (pipeline.problem) throw new Error(pipeline.problem);
    if (!pipeline.tasks.length) throw new Error(`${path.basename(file)} has no task in it`);
    const what = pipeline.tasks.length > 1 ? `a pipeline of ${pipeline.tasks.length} tasks` : 'one task';
    if (opts.confirm !== false) {
      // It starts billed clusters that keep running after this window closes: ask first.
      const pick = await notify.warning(
        `Launch ${path.basename(file)} as a managed job?`,
        { modal: true, detail: `${what[0].toUpperCase()}${what.slice(1)}, each on its own new cluster, run by the managed-jobs controller ${controllerPlace()}; it is recovered when preempted and keeps running when this window closes.${carriedText(pipeline.tasks, base)}` },
        'Launch',
      );
      if (pick !== 'Launch') throw new Dismissed();
    }
    // The controller relaunches the job after a preemption, maybe hours later: it keeps the values (secrets too) in its own store.
    const values = await askEnvs(ctx, file, 'the managed-jobs controller keeps it in its store (to relaunch the job)');
    const envs = { ...values.envs, ...values.secrets };
    // Before a controller VM is started for it: a task its cloud's controller would refuse.
    checkControllerPlace(readControllerSetting().place, pipeline.tasks, envs);
    const client = await ctx.managed({ launch: true });
    const { id, controller } = await client.submit({ tasks: pipeline.tasks, name: pipeline.name, envs, base });
    ctx.log.info(`managed job ${id} submitted from ${file}; controller on ${controller.where}: ${controller.detail}`);
    await ctx.refresh().catch((e) => ctx.log.warn(`refresh after managed launch: ${(e as Error).message}`));
    const name = (await client.job(id))?.name;
    if (opts.showLogs !== false) {
      ctx.logs.open({ cluster: 'managed', jobId: id, name, managed: true }, managedLogSource(() => ctx.managed(), () => ctx.controllerOps(), id));
    } else {
      void notify.info(`Skydeck: managed job ${id} submitted (${what}).`);
    }
    return { id };
  },
};
