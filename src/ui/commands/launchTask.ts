import * as path from 'node:path';
import * as vscode from 'vscode';
import { launch, type AttemptReport } from '../../core/ops';
import { describePlacement } from '../../core/provision';
import type { Command } from './command';
import { defaultClusterName, optionsArg, pickOrNameCluster, resolveTaskFile } from './support/pickers';
import { withOpsProgress } from './support/progress';
import { jobLogSource } from './support/jobLogSource';
import { recordLaunch } from './support/recordLaunch';
import { pickCloudFor } from './support/pickCloud';
import { notify } from '../notify';
import { taskPathBase } from './support/taskPathBase';
import { confirmLaunch } from './support/confirmLaunch';
import { askEnvs } from './support/askEnvs';
import { defaultCloud } from '../defaultCloud';

export interface LaunchTaskOptions {
  /** Skip the cluster prompt (CodeLens, tests). */
  cluster: string;
  /** Default true: open the job's log panel once it is submitted. */
  showLogs: boolean;
  /** Cancels like the notification's Cancel button (tests). */
  cancel: vscode.CancellationToken;
}

/**
 * Launch Task: `sky launch -d` from the editor. Arguments: (uri?, {cluster?, showLogs?}); with
 * no uri, the active YAML editor, else a pick over the workspace's task YAMLs.
 */
export const launchTask: Command<'jobEvents' | 'log' | 'logs' | 'model' | 'ops' | 'refresh' | 'launchValues' | 'workspaceRoot'> = {
  id: 'skydeck.launchTask',
  async run(ctx, arg, options) {
    const opts = optionsArg<LaunchTaskOptions>(options);
    const fallback = defaultCloud(); // skydeck.defaultCloud, checked: a bad value stops here, naming the setting
    const file = await resolveTaskFile(arg);
    const cluster = opts.cluster ?? (await pickOrNameCluster(ctx.model, await defaultClusterName(file.fsPath)));
    // Prompts only for a new cluster (an existing one keeps its cloud), not for tests/CodeLens
    // callers that name the cluster, and not when skydeck.defaultCloud answers it.
    const where = opts.cluster === undefined && !ctx.model.cluster(cluster) && !fallback ? await pickCloudFor(file.fsPath) : undefined;
    const pathBase = taskPathBase(file);
    // One question: the priced plan of a new cloud cluster and what is uploaded (support/confirmLaunch.ts).
    if (opts.cluster === undefined) await confirmLaunch(file.fsPath, pathBase, `Launch ${path.basename(file.fsPath)} on ${cluster}`, { isNew: !ctx.model.cluster(cluster), where });
    const values = await askEnvs(ctx, file.fsPath); // the task's empty envs and secrets; Escape stops here
    let attempts = 0;
    const result = await withOpsProgress(ctx, `Skydeck: launching ${path.basename(file.fsPath)} on ${cluster}`, { cancellable: true, extraCancel: opts.cancel }, (ops, committed, signal) =>
      launch(ops, {
        taskFile: file.fsPath, pathBase, cluster, ...values, detach: true, onSubmitted: committed, cloud: where?.cloud, region: where?.region, defaultCloud: fallback,
        // Cancel reaches the provision loop as its AbortSignal: what it created is terminated
        // with proof before the command returns.
        provisionSignal: signal,
        // Each provisioning attempt (cloud clusters) as it ends: ops.progress writes the
        // line to the log channel and shows it in the notification.
        onAttempt: (a) => ops.progress(describeAttempt(++attempts, a)),
      }),
    );
    ctx.log.info(`launched ${file.fsPath} on ${result.cluster}: job ${result.jobId}`);
    await recordLaunch(ctx, { cluster: result.cluster, jobId: result.jobId, taskFile: file.fsPath, pathBase });
    await ctx.refresh().catch((e) => ctx.log.warn(`refresh after launch: ${(e as Error).message}`));
    if (opts.showLogs !== false) {
      const key = { cluster: result.cluster, jobId: result.jobId, name: ctx.model.job(result.cluster, result.jobId)?.name ?? undefined };
      ctx.logs.open(key, jobLogSource(() => ctx.ops(), key));
    } else {
      void notify.info(`Skydeck: job ${result.jobId} submitted to ${result.cluster}.`);
    }
    return { cluster: result.cluster, jobId: result.jobId };
  },
};

/** "attempt 2: aws/us-east-1/us-east-1b m5.large failed: capacity: no room (cleanup confirmed)". */
export function describeAttempt(n: number, a: AttemptReport): string {
  const where = describePlacement(a.placement);
  if (a.outcome === 'up') return `attempt ${n}: ${where} is up`;
  const why = [a.kind, a.reason].filter(Boolean).join(': ');
  const cleanup = a.cleanup === 'not-needed' ? 'nothing to clean up' : `cleanup ${a.cleanup}`;
  return `attempt ${n}: ${where} ${a.outcome}${why ? `: ${why}` : ''} (${cleanup})`;
}
