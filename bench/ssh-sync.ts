// The workdir-sync figures of bench/ssh.ts alone (sync.exec_full_ms, sync.exec_one_changed_ms):
// exec -d of a task whose workdir holds 20,000 files (500 MB), then with one file edited.
// Needs root and openssh-server. `tsx bench/ssh-sync.ts [runs]`; SKYDECK_TRACE=1 prints each
// sync step (src/core/util/trace.ts).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';
import { down, exec, launch } from '../src/core/ops';
import { sshBenchHost } from './sshBenchHost';
import { runBench } from './runBench';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
    const wd = path.join(ws, 'bigwd');
    for (let i = 0; i < 20_000; i++) {
      const f = path.join(wd, `d${i % 100}`, `f${i}.bin`);
      if (i < 100) fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, Buffer.alloc(25_000, i % 251));
    }
    const wdTask = task('wd', { workdir: wd, resources: { cpus: 0.01 }, run: 'true' });
    const synced: string[] = [];
    ops.log = (m) => { if (m.startsWith('workdir synced')) synced.push(m); };
    let t0 = performance.now();
    await exec(ops, { cluster: 'b', taskFile: wdTask, detach: true });
    const full = performance.now() - t0;
    const oneChanged: number[] = [];
    for (let i = 0; i < runs; i++) {
      fs.writeFileSync(path.join(wd, 'd7', `f${7 + 100 * i}.bin`), `edit ${i}\n`);
      t0 = performance.now();
      await exec(ops, { cluster: 'b', taskFile: wdTask, detach: true });
      oneChanged.push(performance.now() - t0);
      if (process.env.SKYDECK_TRACE === '1') process.stderr.write('\n');
    }
    const load = os.loadavg().map((l) => Math.round(l * 100) / 100);
    console.log(JSON.stringify({ figure: 'sync.exec_full_ms', value: Math.round(full), unit: 'ms', files: 20_000, mb: 500, synced: synced[0], loadavg: load }));
    console.log(JSON.stringify({ figure: 'sync.exec_one_changed_ms', value: Math.round(median(oneChanged)), unit: 'ms', runs, all: oneChanged.map(Math.round), synced: synced.pop(), loadavg: load }));
  } finally {
    await down(ops, 'b', { graceSeconds: 0, purge: true }).catch(() => undefined);
    await ops.dispose();
    await hosts.stop();
  }
}

runBench(main);
