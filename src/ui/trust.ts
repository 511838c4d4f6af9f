// What a workspace may decide (no vscode import: the manifest test reads these lists too).
// A repository can ship .vscode/settings.json; these settings describe the user's machines,
// so a workspace value for them is ignored (they are also "scope": "machine" in package.json).
export const MACHINE_SETTINGS = ['sshPools', 'ssh.channelsPerConnection', 'storage.shareCredentials'] as const;
export type MachineSetting = typeof MACHINE_SETTINGS[number];

/**
 * Commands that run code, open sessions or change clusters named by the workspace (its task
 * YAMLs, its state): disabled in an untrusted workspace (enablement in package.json) and
 * refused by the command itself should something invoke it anyway.
 */
export const TRUSTED_ONLY_COMMANDS: ReadonlySet<string> = new Set([
  'skydeck.launchTask', 'skydeck.execTask', 'skydeck.showLogs', 'skydeck.cancelJob', 'skydeck.cancelAllJobs',
  'skydeck.stopCluster', 'skydeck.startCluster', 'skydeck.setAutostop', 'skydeck.downCluster', 'skydeck.retryDown', 'skydeck.terminateLeaked', 'skydeck.deleteLeakedIdentity',
  'skydeck.openTerminal', 'skydeck.connectRemoteSsh', 'skydeck.deleteBucket',
  'skydeck.launchManagedJob', 'skydeck.cancelManagedJob', 'skydeck.showManagedJobLogs',
]);
