// task-spooler (`tsp`, Debian package task-spooler) as the peer of bench/agent.ts: the same
// workloads on the same machine in the same run. Each instance has its own socket and TMPDIR,
// so it never talks to another tsp server; stop() ends only the processes this instance made.
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const TSP = '/usr/bin/tsp';

/** Stops the benchmark at once, with the command that installs the peer, when tsp is missing. */
export function requireTsp(): void {
  if (fs.existsSync(TSP)) return;
  process.stderr.write('bench:agent compares against task-spooler, which is not installed here.\n' +
    'Install it with:  sudo apt-get install -y task-spooler\n');
  process.exit(2);
}

function allPids(): number[] {
  return fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
}

function read(p: string): string {
  try {
    return fs.readFileSync(p, 'latin1');
  } catch {
    return '';
  }
}

export class Tsp {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-tsp-'));
  /** Every process of this instance (server, per-job clients, payloads) carries this. */
  readonly needle = `SKYDECK_TSP_BENCH=${path.basename(this.dir)}`;
  readonly runScript = path.join(this.dir, 'run.sh');
  private readonly env: NodeJS.ProcessEnv;
  serverPid = 0;

  constructor() {
    this.env = {
      ...process.env,
      TMPDIR: this.dir,
      TS_SOCKET: path.join(this.dir, 'socket'),
      TS_MAXFINISHED: '100000',
      TS_MAXCONN: '10000',
      SKYDECK_TSP_BENCH: path.basename(this.dir),
    };
  }

  /** Starts the server (the first client call forks it) with this many slots. */
  start(slots: number, script = 'sleep 1000\n'): void {
    fs.writeFileSync(this.runScript, script);
    execFileSync(TSP, ['-S', String(slots)], { env: this.env });
    const server = this.procs().filter((p) => commOf(p) === 'tsp');
    if (server.length !== 1) throw new Error(`tsp: expected one server process, found ${server.length}`);
    this.serverPid = server[0];
  }

  /** One client call, as a user types it; resolves with its stdout. */
  run(args: string[]): Promise<string> {
    return new Promise((resolve, reject) =>
      execFile(TSP, args, { env: this.env }, (e, out) => (e ? reject(new Error(`tsp ${args.join(' ')}: ${e.message}`)) : resolve(out))));
  }

  /** Queues `bash run.sh` (the same script a Skydeck job runs with its user shell). */
  async submit(slots = 1): Promise<number> {
    return Number((await this.run(['-N', String(slots), 'bash', this.runScript])).trim());
  }

  /** Pids of every live process of this instance. */
  procs(): number[] {
    return allPids().filter((p) => p !== process.pid && read(`/proc/${p}/environ`).includes(this.needle) && !/^Z/.test(state(p)));
  }

  async stop(): Promise<void> {
    try {
      execFileSync(TSP, ['-K'], { env: this.env, stdio: 'ignore', timeout: 5000 });
    } catch {
      /* already gone */
    }
    for (let round = 0; round < 3; round++) {
      const left = [this.serverPid, ...this.procs()].filter((p) => p > 0 && !/^(Z|)$/.test(state(p)));
      if (!left.length) break;
      for (const p of left) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The state letter of /proc/PID/stat ('' when gone). */
export function state(pid: number): string {
  const s = read(`/proc/${pid}/stat`);
  const i = s.lastIndexOf(')');
  return i < 0 ? '' : s.slice(i + 2, i + 3);
}

export function ppidOf(pid: number): number {
  const s = read(`/proc/${pid}/stat`);
  return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1] || 0);
}

export function commOf(pid: number): string {
  return read(`/proc/${pid}/comm`).trim();
}
