import * as vscode from 'vscode';
import { sshAccessOf, sshCommandLine } from '../../core/access';
import type { Command } from './command';
import { upClusterFromArg } from './support/clusterRow';
import { knownHostsFiles } from './support/knownHosts';
import { notify } from '../notify';

/** Copy SSH Command: an OpenSSH command line that checks the host key Skydeck accepted. */
export const copySshCommand: Command<'model' | 'ops' | 'state'> = {
  id: 'skydeck.copySshCommand',
  async run(ctx, arg) {
    const row = await upClusterFromArg(ctx, arg, 'Skydeck: copy the SSH command of which cluster?');
    const line = sshCommandLine(sshAccessOf(row, knownHostsFiles(await ctx.ops())));
    await vscode.env.clipboard.writeText(line);
    void notify.info(`Skydeck: copied the SSH command for ${row.name}.`);
    return line;
  },
};
