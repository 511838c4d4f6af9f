// A CLI bench for the launch/exec flag tests: a workspace with the fake cloud as aws (its
// instances are this machine, so real jobs run) next to the local cloud, and runCli on it.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/main';
import { StateStore } from '../../../src/core/state';
import { staticProviders } from '../../../src/core/clouds/provider';
import { Connections, localAgentBootstrap, type OpsContext } from '../../../src/core/ops';
import { scaledClock } from '../../../src/core/provision';
import { FakeProvider } from '../../support/fakeCloud/fakeProvider';
import { cleanupBase } from '../agent/helpers';

export interface Bench {
  root: string;
  ctx: OpsContext;
  cloud: FakeProvider;
  warnings: string[];
  run(...argv: string[]): Promise<{ code: number; out: string; err: string }>;
  close(): Promise<void>;
}

export async function openBench(prefix: string): Promise<Bench> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const clock = scaledClock(100);
  const cloud = new FakeProvider({ cloud: 'aws', clock });
  const warnings: string[] = [];
  const ctx: OpsContext = {
    store: await StateStore.openWorkspace(root), workspaceRoot: root, sshPools: () => ({ pools: [], errors: [] }),
    connections: new Connections({ knownHostsFile: path.join(root, 'known_hosts'), workspaceRoot: root }),
    progress: () => undefined, log: () => undefined, warn: (m) => warnings.push(m), user: 'tester',
    providers: staticProviders(cloud), clock, timing: { confirmTimeoutMs: 60_000 },
  };
  ctx.bootstrap = localAgentBootstrap(ctx);
  return {
    root, ctx, cloud, warnings,
    async run(...argv) {
      let out = '';
      let err = '';
      const code = await runCli(argv, { out: (t) => (out += t), outBytes: (d) => (out += d.toString()), err: (t) => (err += t) }, async () => ctx);
      return { code, out, err };
    },
    async close() {
      await ctx.connections.closeAll();
      ctx.store.close();
      await cleanupBase(root);
    },
  };
}

/** Writes files under `root` (creating folders); returns root. */
export function layout(root: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/** Runs `fn` with the process's working directory at `dir` (the CLI resolves paths from it). */
export async function inDir<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const before = process.cwd();
  process.chdir(dir);
  try {
    return await fn();
  } finally {
    process.chdir(before);
  }
}
