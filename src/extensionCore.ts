// Entry of dist/extension-core.js: everything the extension needs only once something is used
// (a command runs, the Clusters view loads, a task YAML opens, a log panel follows): core/ops
// with ssh2, the sql.js state, the task parser and its validator. dist/extension.js loads it
// on first use (Services.core()), so activation parses a small file instead of ~1.9 MB.
import type { CoreApi } from './ui/coreApi';
import { registerCommands } from './ui/commands/registerCommands';
import { jobLogSource } from './ui/commands/support/jobLogSource';
import { registerTaskYamlSupport } from './ui/taskYaml';
import { StateStore, listClusters } from './core/state';
import { Connections, defaultKnownHostsFile, deleteBucket, listBuckets, queue, reconcile, reconcileBuckets } from './core/ops';
import { loadSshPools } from './core/clouds/sshPools';
import { cloudProviders } from './core/clouds/registry';
import * as path from 'node:path';
import { controllerHome, controllerPlace, listManagedJobs, openEditorClient } from './core/managed';
import { managedLogSource } from './ui/commands/support/managedLogSource';
import { costView } from './core/cost/costView';
import { LastWindowWatch } from './ui/cost/lastWindowWatch';

export const core: CoreApi = {
  registerCommands,
  registerTaskYamlSupport,
  jobLogSource,
  StateStore,
  listClusters,
  Connections,
  defaultKnownHostsFile,
  queue,
  reconcile,
  reconcileBuckets,
  loadSshPools,
  cloudProviders,
  listBuckets,
  deleteBucket,
  controllerHome,
  // The controller is the bundled CLI next to this file (dist/cli-main.js, the full CLI), run by this process's
  // runtime: in VS Code that is Electron, which runs plain Node code only with ELECTRON_RUN_AS_NODE.
  openManagedClient: (home, o) => openEditorClient(home, {
    entry: { execPath: process.execPath, args: [path.join(__dirname, 'cli-main.js')], env: { ELECTRON_RUN_AS_NODE: '1' } },
    entryFile: path.join(__dirname, 'cli-main.js'), ops: o.ops, launch: o.launch,
  }),
  controllerPlace,
  listManagedJobs,
  managedLogSource,
  costView,
  lastWindowWatch: (deps) => new LastWindowWatch(deps),
};
