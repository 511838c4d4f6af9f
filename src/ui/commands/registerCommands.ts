import * as vscode from 'vscode';
import type { Command, CommandDeps } from './command';
import { pendingCommands } from './notYetAvailable';
import { refresh } from './refresh';
import { launchTask } from './launchTask';
import { execTask } from './execTask';
import { showLogs } from './showLogs';
import { cancelJob } from './cancelJob';
import { cancelAllJobs } from './cancelAllJobs';
import { downCluster } from './downCluster';
import { openTerminal } from './openTerminal';
import { copySshCommand } from './copySshCommand';
import { connectRemoteSsh } from './connectRemoteSsh';
import { openExampleTask } from './openExampleTask';
import { checkCloudsCommand } from './checkClouds';
import { findLeaked } from './findLeaked';
import { terminateLeaked } from './terminateLeaked';
import { deleteLeakedIdentity } from './deleteLeakedIdentity';
import { deleteBucket } from './deleteBucket';
import { retryDown } from './retryDown';
import { stopCluster } from './stopCluster';
import { startCluster } from './startCluster';
import { launchManagedJob } from './launchManagedJob';
import { cancelManagedJob } from './cancelManagedJob';
import { showManagedJobLogs } from './showManagedJobLogs';
import { setAutostop } from './setAutostop';
import { browseGpus } from './browseGpus';
import { showLaunchPlan } from './showLaunchPlan';
import { Dismissed } from './support/pickers';
import { CancelledByUser } from './support/progress';
import { TRUSTED_ONLY_COMMANDS } from '../trust';
import { notify } from '../notify';
import { testProbe, type CommandOutcome } from '../testProbe';

const COMMANDS: Command[] = [refresh, launchTask, execTask, showLogs, cancelJob, cancelAllJobs, downCluster, openTerminal, copySshCommand, connectRemoteSsh, openExampleTask, checkCloudsCommand,
  findLeaked, terminateLeaked, deleteLeakedIdentity, retryDown, stopCluster, startCluster, setAutostop, deleteBucket,
  launchManagedJob, cancelManagedJob, showManagedJobLogs, browseGpus, showLaunchPlan,
  ...pendingCommands];

export function registerCommands(ctx: CommandDeps): vscode.Disposable[] {
  return COMMANDS.map((c) =>
    vscode.commands.registerCommand(c.id, async (...args: unknown[]) => {
      // Menus already disable these in an untrusted workspace; this covers any other caller.
      if (TRUSTED_ONLY_COMMANDS.has(c.id) && !vscode.workspace.isTrusted) {
        testProbe()?.commands.push({ command: c.id, outcome: 'refused' });
        void notify.warning('Skydeck: this workspace is not trusted, so Skydeck does not run tasks or act on its clusters here. Trust the workspace to use this command.');
        return undefined;
      }
      // Under the in-host tests only: how each call ended (a thrown command also returns undefined).
      const outcome = (o: CommandOutcome['outcome'], message?: string) => testProbe()?.commands.push({ command: c.id, outcome: o, message });
      try {
        const r = await c.run(ctx, ...args);
        outcome('ok');
        return r;
      } catch (e) {
        // A dismissed prompt is the user changing their mind: no message at all.
        if (e instanceof Dismissed) {
          outcome('dismissed');
          return undefined;
        }
        if (e instanceof CancelledByUser) {
          outcome('cancelled', e.message);
          void notify.info(`${e.message}; nothing was submitted.`);
          return undefined;
        }
        outcome('error', (e as Error).message);
        // Short message for the user; the details go to the log channel.
        ctx.log.error(`${c.id} failed`, e as Error);
        // Not awaited: the command is over; the message stays until the user dismisses it.
        void notify.error(`Skydeck: ${(e as Error).message}`, 'Show details').then((pick) => {
          if (pick) ctx.log.show();
        });
        return undefined;
      }
    }),
  );
}
