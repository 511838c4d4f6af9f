// Entry of dist/extension-core.js: everything the extension needs only once something is used
// (a command runs, the Clusters view loads, a task YAML opens, a log panel follows): core/ops
// with ssh2, the sql.js state, the task parser and its validator. dist/extension.js loads it
// on first use (Services.core()), so activation parses a small file instead of ~1.9 MB.
//
// Tree node classes live here, not in extension.js: commands test `arg instanceof JobNode`,
// so the tree that creates nodes and the commands that receive them must share one copy.
export { registerCommands } from './ui/commands/registerCommands';
export { jobLogSource } from './ui/commands/support/jobLogSource';
export { registerTaskYamlSupport } from './ui/taskYaml';
export { ClusterNode } from './ui/tree/clusterNode';
export { JobNode } from './ui/tree/jobNode';
export { LeakedGroupNode, OtherWorkspacesNode, LeakedInstanceNode, LeakSweepErrorNode } from './ui/tree/leakNodes';
export { StateStore, listClusters } from './core/state';
export { Connections, defaultKnownHostsFile, queue, reconcile } from './core/ops';
export { loadSshPools } from './core/clouds/sshPools';
export { cloudProviders } from './core/clouds/registry';
