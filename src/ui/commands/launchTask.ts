import * as path from 'node:path';
import * as vscode from 'vscode';
import { launch } from '../../core/ops';
import type { Command } from './command';
import { defaultClusterName, optionsArg, pickOrNameCluster, resolveTaskFile } from './support/pickers';
import { withOpsProgress } from './support/progress';
import { jobLogSource } from './support/jobLogSource';

export interface LaunchTaskOptions {
  /** Skip the cluster prompt (CodeLens, tests). */
  cluster: string;
  /** Default true: open the job's log panel once it is submitted. */
  showLogs: boolean;
}

/**
 * Launch Task: `sky launch -d` from the editor. Arguments: (uri?, {cluster?, showLogs?}); with
 * no uri, the active YAML editor, else a pick over the workspace's task YAMLs.
 */
export const launchTask: Command = {
  id: 'skydeck.launchTask',
  async run(ctx, arg, options) {
    const opts = optionsArg<LaunchTaskOptions>(options);
    const file = await resolveTaskFile(arg);
    const cluster = opts.cluster ?? (await pickOrNameCluster(ctx.model, await defaultClusterName(file.fsPath)));
    const result = await withOpsProgress(ctx.services, `Skydeck: launching ${path.basename(file.fsPath)} on ${cluster}`, { cancellable: true }, (ops, committed) =>
      launch(ops, { taskFile: file.fsPath, cluster, detach: true, onSubmitted: committed }),
    );
    ctx.services.log.info(`launched ${file.fsPath} on ${result.cluster}: job ${result.jobId}`);
    await ctx.clusters.refresh().catch((e) => ctx.services.log.warn(`refresh after launch: ${(e as Error).message}`));
    if (opts.showLogs !== false) {
      const key = { cluster: result.cluster, jobId: result.jobId, name: ctx.model.job(result.cluster, result.jobId)?.name ?? undefined };
      ctx.logs.open(key, jobLogSource(() => ctx.services.ops(), key));
    } else {
      void vscode.window.showInformationMessage(`Skydeck: job ${result.jobId} submitted to ${result.cluster}.`);
    }
    return { cluster: result.cluster, jobId: result.jobId };
  },
};
