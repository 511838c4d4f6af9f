import * as os from 'node:os';
import type * as vscode from 'vscode';
import type { StateStore } from '../core/state';
import type { Connections, OpsContext } from '../core/ops';
import type { CoreApi } from './coreApi';
import { machineSetting } from './settings';
import { notify } from './notify';

/**
 * The editor's OpsContext over one workspace root and its state: the window's own, or the
 * managed-jobs controller's (whose clusters the Managed jobs section and its log panels read).
 */
export function opsContextOver(
  core: CoreApi, root: string, store: StateStore, log: vscode.LogOutputChannel,
  askHostKey: (host: string, fingerprint: string, type: string) => Promise<boolean>,
): { ctx: OpsContext; connections: Connections } {
  const { Connections, defaultKnownHostsFile, loadSshPools, cloudProviders } = core;
  const connections = new Connections({
    workspaceRoot: root,
    knownHostsFile: defaultKnownHostsFile(),
    onUnknownHostKey: askHostKey,
    maxChannels: machineSetting<number>('ssh.channelsPerConnection'),
    log: (m) => log.debug(m),
  });
  const ctx: OpsContext = {
    store,
    workspaceRoot: root,
    // Read on each use so edits to the setting apply without a reload.
    sshPools: () => loadSshPools(machineSetting('sshPools')),
    connections,
    // Commands with a progress notification pass a per-call copy whose progress reports there.
    progress: (step) => log.info(step),
    log: (m) => log.debug(m),
    warn: (m) => {
      log.warn(m);
      void notify.warning(`Skydeck: ${m}`);
    },
    user: safeUser(),
    // Each cloud's SDK loads from its own bundle when that cloud is first used.
    providers: cloudProviders({ log: (m) => log.debug(m) }),
    // Read on each use (each command's context copies it), like sshPools.
    get storageCredentials() {
      return machineSetting<boolean>('storage.shareCredentials') === true ? 'share' as const : 'never' as const;
    },
  };
  return { ctx, connections };
}

function safeUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}
