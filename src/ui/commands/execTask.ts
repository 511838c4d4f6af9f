import * as path from 'node:path';
import * as vscode from 'vscode';
import { exec } from '../../core/ops';
import { isNode } from '../tree/nodeKind';
import type { Command } from './command';
import { clusterFromArg, optionsArg, resolveTaskFile } from './support/pickers';
import { withOpsProgress } from './support/progress';
import { jobLogSource } from './support/jobLogSource';
import { recordLaunch } from './support/recordLaunch';
import { confirmUploads, taskPathBase } from './support/taskPathBase';
import { askEnvs } from './support/askEnvs';

export interface ExecTaskOptions {
  cluster: string;
  taskFile: vscode.Uri;
  showLogs: boolean;
}

/**
 * Exec Task: `sky exec -d` (sync the workdir, run `run` as a new job, no setup). The first
 * argument is a cluster node (tree menu) or a task Uri (CodeLens/explorer); the second may name
 * the cluster (the CodeLens passes its name) or carry {cluster, taskFile, showLogs}; the rest is asked.
 */
export const execTask: Command<'jobEvents' | 'log' | 'logs' | 'model' | 'ops' | 'refresh' | 'launchValues' | 'workspaceRoot'> = {
  id: 'skydeck.execTask',
  async run(ctx, arg, options) {
    const opts = typeof options === 'string' ? { cluster: options } : optionsArg<ExecTaskOptions>(options);
    const cluster = opts.cluster ?? (await clusterFromArg(ctx.model, isNode(arg, 'cluster') ? arg : undefined, 'Skydeck: exec on which cluster?', (c) => c.status === 'UP'));
    const file = opts.taskFile ?? (await resolveTaskFile(arg instanceof vscode.Uri ? arg : undefined));
    const pathBase = taskPathBase(file);
    if (opts.cluster === undefined && opts.taskFile === undefined) await confirmUploads(file.fsPath, pathBase, `Exec ${path.basename(file.fsPath)} on ${cluster}`);
    const values = await askEnvs(ctx, file.fsPath); // the task's empty envs and secrets; Escape stops here
    const result = await withOpsProgress(ctx, `Skydeck: running ${path.basename(file.fsPath)} on ${cluster}`, { cancellable: true }, (ops, committed, signal) =>
      exec(ops, { cluster, taskFile: file.fsPath, pathBase, ...values, detach: true, onSubmitted: committed, signal }),
    );
    await recordLaunch(ctx, { cluster, jobId: result.jobId, taskFile: file.fsPath, pathBase });
    await ctx.refresh().catch((e) => ctx.log.warn(`refresh after exec: ${(e as Error).message}`));
    if (opts.showLogs !== false) {
      const key = { cluster, jobId: result.jobId, name: ctx.model.job(cluster, result.jobId)?.name ?? undefined };
      ctx.logs.open(key, jobLogSource(() => ctx.ops(), key));
    }
    return { cluster, jobId: result.jobId };
  },
};
