import * as vscode from 'vscode';
import type { Command, CommandContext } from './command';
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
import { retryDown } from './retryDown';
import { stopCluster } from './stopCluster';
import { startCluster } from './startCluster';
import { Dismissed } from './support/pickers';
import { CancelledByUser } from './support/progress';
import { TRUSTED_ONLY_COMMANDS } from '../trust';
import { notify } from '../notify';

const COMMANDS: Command[] = [refresh, launchTask, execTask, showLogs, cancelJob, cancelAllJobs, downCluster, openTerminal, copySshCommand, connectRemoteSsh, openExampleTask, checkCloudsCommand,
  findLeaked, terminateLeaked, retryDown, stopCluster, startCluster,
  ...pendingCommands];

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  return COMMANDS.map((c) =>
    vscode.commands.registerCommand(c.id, async (...args: unknown[]) => {
      // Menus already disable these in an untrusted workspace; this covers any other caller.
      if (TRUSTED_ONLY_COMMANDS.has(c.id) && !vscode.workspace.isTrusted) {
        void notify.warning('Skydeck: this workspace is not trusted, so Skydeck does not run tasks or act on its clusters here. Trust the workspace to use this command.');
        return undefined;
      }
      try {
        return await c.run(ctx, ...args);
      } catch (e) {
        // A dismissed prompt is the user changing their mind: no message at all.
        if (e instanceof Dismissed) return undefined;
        if (e instanceof CancelledByUser) {
          void notify.info(`${e.message}; nothing was submitted.`);
          return undefined;
        }
        // Short message for the user; the details go to the log channel.
        ctx.services.log.error(`${c.id} failed`, e as Error);
        // Not awaited: the command is over; the message stays until the user dismisses it.
        void notify.error(`Skydeck: ${(e as Error).message}`, 'Show details').then((pick) => {
          if (pick) ctx.services.log.show();
        });
        return undefined;
      }
    }),
  );
}
