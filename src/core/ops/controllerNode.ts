// What ops knows of a managed-jobs controller cluster (managed/remote/): its name, and where the
// controller's store sits on a cloud controller's node, which the agent reads to count the node
// busy while a managed job is unfinished (agent autostop.py managed_activity). Kept here, with
// no imports, so ops and managed/remote share it without importing each other.

/** `skydeck-jobs-<8 hex>` (managed/remote/controllerCluster.ts controllerClusterName). */
export const CONTROLLER_CLUSTER = /^skydeck-jobs-[0-9a-f]{8}$/;

/**
 * The store of the controller on a node whose runtime root is the default one (runtime.ts:
 * ~/.skydeck/jobs-controller, home/ under it, the store in home/.skydeck/managed.db).
 */
export const NODE_MANAGED_STORE = '~/.skydeck/jobs-controller/home/.skydeck/managed.db';
