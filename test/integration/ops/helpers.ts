// Shared set-up for the ops tests: a scratch workspace, its state store and an OpsContext that
// records what the user would see.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StateStore } from '../../../src/core/state';
import { Connections, type OpsContext } from '../../../src/core/ops';
import type { ConnectionsOptions } from '../../../src/core/ops/connections';
import type { SshPool } from '../../../src/core/clouds/sshPools';

export interface TestOps extends OpsContext {
  progressLines: string[];
  warnings: string[];
  dispose(): Promise<void>;
}

export async function testOps(opts: { pools?: SshPool[]; connections?: Partial<ConnectionsOptions>; root?: string } = {}): Promise<TestOps> {
  const root = opts.root ?? fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-ops-'));
  const store = await StateStore.openWorkspace(root);
  const progressLines: string[] = [];
  const warnings: string[] = [];
  const connections = new Connections({ knownHostsFile: path.join(root, 'known_hosts'), workspaceRoot: root, ...opts.connections });
  return {
    store,
    workspaceRoot: root,
    sshPools: () => ({ pools: opts.pools ?? [], errors: [] }),
    connections,
    progress: (s) => progressLines.push(s),
    log: () => undefined,
    warn: (w) => warnings.push(w),
    user: 'tester',
    progressLines,
    warnings,
    async dispose() {
      await connections.closeAll();
      store.close();
    },
  };
}

export function writeTask(dir: string, name: string, yaml: string): string {
  const f = path.join(dir, name);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, yaml);
  return f;
}

export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
