// Whether a launch runs setup: always on a cluster it brought up, on a reused UP cluster only
// when setup's hash changed or the node does not confirm the last setup ran through
// (setupRecord.ts). --fast trusts the local record without asking the node.
import type { AgentClient } from '../jobs';
import type { ClusterRecord } from '../state';
import type { Task } from '../task';
import type { OpsContext } from './context';
import { decideSetup, readSetupRecord, setupHash, setupRecordFile, writeSetupRecord } from './setupRecord';

export interface SetupPlan {
  run: boolean;
  /** Said with the submit, e.g. "setup unchanged since job 3: skipped". */
  say?: string;
  /** After the submit: remember the job that runs this setup. */
  record(jobId: number): void;
}

export async function setupPlan(
  ctx: OpsContext, client: AgentClient, row: ClusterRecord, task: Task,
  envs: Record<string, string>, secrets: Record<string, string>, reused: boolean, fast: boolean,
): Promise<SetupPlan> {
  const hash = setupHash(task, envs, secrets);
  const file = setupRecordFile(ctx.workspaceRoot, row.uid);
  const rec = reused ? readSetupRecord(file) : undefined;
  const ask = reused && !fast && !!task.setup && rec?.hash === hash;
  const d = reused ? decideSetup(task, hash, rec, ask ? await client.queueSnapshot() : undefined) : { run: !!task.setup, why: '' };
  return {
    run: d.run,
    say: reused && task.setup ? d.why : undefined,
    record(jobId) {
      if (!d.run) return;
      try {
        writeSetupRecord(file, { hash, jobId });
      } catch (e) {
        ctx.warn(`setup of job ${jobId} is not recorded, so the next launch runs it again: ${(e as Error).message}`);
      }
    },
  };
}
