// Shared by the bucket ops tests: a workspace with a task naming a bucket, a cluster row to own
// it, and an OpsContext whose S3 is moto (also used by the child process of the kill -9 test).
import { onlyS3 } from './bucketsEnv';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseTaskText, type Task } from '../../../src/core/task';
import { StateStore, thisCreator, type ClusterRecord } from '../../../src/core/state';
import { Connections, type OpsContext } from '../../../src/core/ops';
import { S3BucketStore } from '../../../src/core/storage/buckets/s3';

export function bucketTask(yaml: string, dir: string): Task {
  const r = parseTaskText(yaml, path.join(dir, 'task.yaml'));
  if (!r.ok) throw new Error(`task does not parse: ${JSON.stringify(r.diagnostics)}`);
  return r.tasks[0];
}

/** A local directory of `n` small files (and one larger one). */
export function dataDir(root: string, n: number): string {
  const d = path.join(root, 'data');
  fs.mkdirSync(path.join(d, 'sub'), { recursive: true });
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(d, i % 2 ? 'sub' : '', `f${i}.txt`), `file ${i}\n`.repeat(1 + (i % 7)));
  return d;
}

/** A cluster row shape (only its uid matters to the bucket ops; it is not written). */
export function clusterRow(uid: string = randomUUID()): ClusterRecord {
  const me = thisCreator();
  return {
    name: 'bk', uid, provider: 'local', region: null, zone: null, status: 'UP', resources: null, num_nodes: 1, head_address: null,
    ssh_user: null, ssh_port: null, ssh_key_path: null, handle: null, launched_at: Date.now(), updated_at: Date.now(), last_error: null,
    autostop_minutes: null, autostop_down: 0, flags: null, created_by_user: me.user, created_by_machine: me.machine, account: null,
  };
}

export interface BucketOps extends OpsContext {
  lines: string[];
  dispose(): void;
}

export async function bucketOps(root: string, motoUrl: string, concurrency?: number): Promise<BucketOps> {
  const store = await StateStore.openWorkspace(root);
  const lines: string[] = [];
  const s3 = () => new S3BucketStore({ store: 's3', endpoint: motoUrl, concurrency });
  return {
    store, workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
    connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts'), workspaceRoot: root }),
    progress: (s) => lines.push(`progress: ${s}`), log: (s) => lines.push(`log: ${s}`), warn: (s) => lines.push(`warn: ${s}`),
    user: 'tester', bucketStores: onlyS3(s3),
    lines,
    dispose: () => store.close(),
  };
}

export const tmpRoot = () => fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bkops-'));
