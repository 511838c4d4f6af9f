// The extras every node sync takes (head in syncHead.ts, workers in multiNode.ts); apart so
// the two do not import each other.
import type { PlannedMount } from './bucketPlan';

/** What a sync needs beyond the task: the planned bucket mounts, and the task's envs and secrets (where a git workdir finds GIT_TOKEN / GIT_SSH_KEY_PATH). */
export interface SyncExtras {
  buckets?: PlannedMount[];
  gitEnvs?: Record<string, string>;
  /** launch --fast on an UP cluster: no file mounts; an unchanged workdir is not even checked on the node. */
  fast?: boolean;
  /** Workdir manifests written after the caller's next step (syncFiles.ts syncWorkdir); the caller awaits them. */
  deferred?: Promise<Error | undefined>[];
}
