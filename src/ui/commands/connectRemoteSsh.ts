import * as vscode from 'vscode';
import {
  containerAlias, defaultSshConfigPaths, ensureSshInclude, hasInclude, includeLine, sshAccessOf, writeClusterSshConfig,
} from '../../core/access';
import type { Command } from './command';
import { upClusterFromArg } from './support/clusterRow';
import { knownHostsFiles } from './support/knownHosts';
import { Dismissed, optionsArg } from './support/pickers';
import { readFileOrEmpty } from './support/readFileOrEmpty';
import { notify } from '../notify';

const REMOTE_SSH = 'ms-vscode-remote.remote-ssh';

export interface ConnectRemoteSshOptions {
  /** false: do not open a window (tests); the default opens one when Remote-SSH is installed. */
  open: boolean;
  /** Answer for the ~/.ssh/config question without asking (tests). */
  addInclude: boolean;
}

/**
 * Connect with Remote-SSH: writes a Skydeck-managed Host block for the cluster, makes sure
 * ~/.ssh/config includes Skydeck's files (asking first: it is the user's file), then opens
 * the cluster's workdir in a Remote-SSH window.
 */
export const connectRemoteSsh: Command<'log' | 'model' | 'ops' | 'state' | 'workspaceRoot'> = {
  id: 'skydeck.connectRemoteSsh',
  async run(ctx, arg, options) {
    const opts = optionsArg<ConnectRemoteSshOptions>(options);
    const row = await upClusterFromArg(ctx, arg, 'Skydeck: connect to which cluster with Remote-SSH?');
    const access = sshAccessOf(row, knownHostsFiles(await ctx.ops()));
    const paths = defaultSshConfigPaths();
    const file = writeClusterSshConfig(paths, access, ctx.workspaceRoot);
    ctx.log.info(`wrote Host ${access.alias} to ${file}`);
    if (!hasInclude(readFileOrEmpty(paths.userConfig), paths)) {
      const add = opts.addInclude ?? (await askInclude(paths.userConfig, includeLine(paths)));
      if (add) ensureSshInclude(paths);
      else {
        void notify.info(
          `Skydeck: Host ${access.alias} is in ${file}. Add "${includeLine(paths)}" at the top of ${paths.userConfig} to use it from Remote-SSH.`,
        );
        return { alias: access.alias, file, opened: false };
      }
    }
    // A container cluster's workdir is inside its container, which Remote-SSH does not enter:
    // the window opens on the node, and says so (the container's own alias is for ssh).
    const folder = access.container ? '/' : access.workdir || '/';
    const uri = vscode.Uri.parse(`vscode-remote://ssh-remote+${access.alias}${folder}`);
    if (access.container) {
      void notify.info(
        `Skydeck: the Remote-SSH window of ${access.cluster} is on its node, outside the container ${access.container.name} where its jobs run and its workdir is. ` +
          `For a shell inside the container use Open SSH Terminal, or "ssh ${containerAlias(access)}" (written to ${file}).`,
      );
    }
    if (opts.open === false) return { alias: access.alias, file, uri: uri.toString(), opened: false };
    if (!vscode.extensions.getExtension(REMOTE_SSH)) {
      const pick = await notify.info(
        `Skydeck: Host ${access.alias} is ready in your SSH config. Install the Remote - SSH extension to open it in VS Code, or run "ssh ${access.alias}".`,
        'Find Remote - SSH',
      );
      if (pick) await vscode.commands.executeCommand('workbench.extensions.search', REMOTE_SSH);
      return { alias: access.alias, file, opened: false };
    }
    await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
    return { alias: access.alias, file, uri: uri.toString(), opened: true };
  },
};

async function askInclude(userConfig: string, line: string): Promise<boolean> {
  const pick = await notify.info(
    `Skydeck will add one line at the top of ${userConfig} so SSH and Remote-SSH find Skydeck's cluster hosts.`,
    { modal: true, detail: `${line}\n\nThe rest of the file is left as it is.` },
    'Add Include',
    'Not now',
  );
  if (pick === undefined) throw new Dismissed();
  return pick === 'Add Include';
}
