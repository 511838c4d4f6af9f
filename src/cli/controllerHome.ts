// The CLI's side of the local managed-jobs controller (core/managed/localHome.ts): it starts
// the controller by running itself, the same node and CLI entry, so versions match.
import { controllerHome, openLocalClient, storeFileOf, type ManagedJobsClient } from '../core/managed';
import type { OpsContext } from '../core/ops';

export { controllerHome, storeFileOf };

/** The client every `jobs` command uses: today the controller on this machine. */
export function managedClient(ctx: OpsContext): Promise<ManagedJobsClient> {
  return openLocalClient(ctx.workspaceRoot, { execPath: process.execPath, args: [...process.execArgv, process.argv[1]] }, () => ctx.clock?.now() ?? Date.now());
}
