// The workdir-sync figures of bench/ssh.ts alone (sync.exec_full_ms, sync.exec_one_changed_ms):
// exec -d of a task whose workdir holds 20,000 files (500 MB), then with one file edited.
// Needs root and openssh-server. `tsx bench/ssh-sync.ts [runs]`; SKYDECK_TRACE=1 prints each
// sync step (src/core/util/trace.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import YAML from 'yaml';
import { down, launch } from '../src/core/ops';
import { sshBenchHost } from './sshBenchHost';
import { runBench } from './runBench';
import { syncFigures } from './syncFigures';

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 5);
  const { hosts, ops, ws } = await sshBenchHost();
  const task = (name: string, body: object) => {
    const f = path.join(ws, `${name}.yaml`);
    fs.writeFileSync(f, YAML.stringify(body));
    return f;
  };
  try {
    await launch(ops, { taskFile: task('up', { resources: { cloud: 'ssh' }, run: 'true' }), cluster: 'b' });
    await syncFigures(ops, ws, 'b', task, runs);
  } finally {
    await down(ops, 'b', { graceSeconds: 0, purge: true }).catch(() => undefined);
    await ops.dispose();
    await hosts.stop();
  }
}

runBench(main);
