// Small process and /proc helpers for the test-host harness. Linux only, root only.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';

export interface RunResult { code: number | null; stdout: string; stderr: string; }

/** Runs a program (no shell) and collects its output. */
export function run(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.stdin.on('error', () => { /* the program did not read its input */ });
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
    child.stdin.end(opts.input ?? '');
  });
}

/** Like run(), but a non-zero exit is an Error that carries the command and its stderr. */
export async function runOk(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const r = await run(file, args, opts);
  if (r.code !== 0) throw new Error(`${file} ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
  return r.stdout;
}

/** What the harness needs from the machine; each missing item names its fix. */
export function missingPrerequisites(): string[] {
  const missing: string[] = [];
  if (process.platform !== 'linux') missing.push(`Linux (this is ${process.platform})`);
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    missing.push('root (the harness creates Linux users and PID namespaces; run the tests as root)');
  }
  const bins: Array<[string, string]> = [
    ['/usr/sbin/sshd', 'apt-get install -y --no-install-recommends openssh-server'],
    ['ssh-keygen', 'apt-get install -y --no-install-recommends openssh-client'],
    ['unshare', 'util-linux'],
    ['nsenter', 'util-linux'],
    ['setpriv', 'util-linux'],
    ['runuser', 'util-linux'],
    ['useradd', 'passwd'],
    ['userdel', 'passwd'],
  ];
  for (const [bin, pkg] of bins) {
    if (!onPath(bin)) missing.push(`${bin} (${pkg})`);
  }
  return missing;
}

function onPath(bin: string): boolean {
  if (bin.startsWith('/')) return isExecutable(bin);
  const dirs = (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin', '/usr/bin', '/bin']);
  return dirs.some((d) => d && isExecutable(`${d}/${bin}`));
}

function isExecutable(p: string): boolean {
  try { fs.accessSync(p, fs.constants.X_OK); return fs.statSync(p).isFile(); } catch { return false; }
}

/** A port that was free on `address` a moment ago (sshd binds it right after). */
export function freePort(address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, address, () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface ProcInfo { pid: number; ppid: number; comm: string; uid: number; }

/** Every process visible in our PID namespace. */
export function listProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // comm may contain spaces and parentheses: fields resume after the last ')'.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const rest = stat.slice(close + 2).split(' ');
      const status = fs.readFileSync(`/proc/${name}/status`, 'utf8');
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1);
      out.push({ pid: Number(name), ppid: Number(rest[1]), comm, uid });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** All descendants of `root` (not root itself). */
export function descendants(root: number, procs = listProcesses()): ProcInfo[] {
  const byParent = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = byParent.get(p.ppid) ?? [];
    list.push(p);
    byParent.set(p.ppid, list);
  }
  const result: ProcInfo[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    for (const c of byParent.get(pid) ?? []) {
      result.push(c);
      queue.push(c.pid);
    }
  }
  return result;
}

export function isAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

export function killQuietly(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try { process.kill(pid, signal); } catch { /* already gone */ }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Synchronous variant for the process 'exit' hook, where nothing async runs any more. */
export function runSyncQuietly(file: string, args: string[]): void {
  spawnSync(file, args, { stdio: 'ignore' });
}
