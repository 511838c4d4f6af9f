import * as vscode from 'vscode';
import type { Command, CommandContext } from './command';
import { pendingCommands } from './notYetAvailable';
import { refresh } from './refresh';

const COMMANDS: Command[] = [refresh, ...pendingCommands];

export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  return COMMANDS.map((c) =>
    vscode.commands.registerCommand(c.id, async (...args: unknown[]) => {
      try {
        return await c.run(ctx, ...args);
      } catch (e) {
        // Short message for the user; the details go to the log channel.
        ctx.services.log.error(`${c.id} failed`, e as Error);
        const pick = await vscode.window.showErrorMessage(`Skydeck: ${(e as Error).message}`, 'Show details');
        if (pick) ctx.services.log.show();
      }
    }),
  );
}
