import * as vscode from 'vscode';
import { readHandle } from '../../core/ops/clusterHandle';
import type { Command } from './command';
import { upClusterFromArg } from './support/clusterRow';
import { SshPseudoterminal } from '../terminal/sshPseudoterminal';

/**
 * Open SSH Terminal: a shell in the task's workdir on the head. Over Skydeck's SSH connection
 * for remote clusters; a plain local terminal for clusters on this machine.
 */
export const openTerminal: Command<'model' | 'ops' | 'state'> = {
  id: 'skydeck.openTerminal',
  async run(ctx, arg) {
    const row = await upClusterFromArg(ctx, arg, 'Skydeck: open a terminal on which cluster?');
    const workdir = readHandle(row).workdir || undefined;
    const name = `Skydeck: ${row.name}`;
    let terminal: vscode.Terminal;
    if (row.provider === 'local') {
      terminal = vscode.window.createTerminal({ name, cwd: workdir, iconPath: new vscode.ThemeIcon('vm') });
    } else {
      const ops = await ctx.ops();
      const head = readHandle(row).hosts[0];
      const pty = new SshPseudoterminal(`${head?.user}@${head?.address}`, (o) => ops.connections.openShell(row, o), workdir);
      terminal = vscode.window.createTerminal({ name, pty, iconPath: new vscode.ThemeIcon('remote') });
    }
    terminal.show();
    return terminal;
  },
};
