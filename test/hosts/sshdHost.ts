// One test "host": a real sshd bound to its own loopback address, serving its own Linux user,
// inside its own PID (and mount) namespace so that killing the namespace's init is a reboot.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { descendants, isAlive, killQuietly, run, sleep, type RunResult } from './system';
import type { TestUser } from './users';

export interface TestHost {
  /** e.g. "h2" for 127.0.0.2 */
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly user: string;
  readonly uid: number;
  readonly home: string;
  /** OpenSSH form, e.g. "SHA256:Xk3…" (no padding), as `ssh-keygen -l` prints it. */
  readonly hostKeyFingerprint: string;
  /** "ssh-ed25519 AAAA…" */
  readonly hostPublicKey: string;
  /** sshd's own log (-e), appended across restarts. */
  readonly logPath: string;
  /** Reboot: kill the namespace (sshd and every process the user ran), start sshd again. */
  restart(): Promise<void>;
  /** Power off: kill the namespace; the port then refuses connections until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Kills the sshd processes serving current connections (not the listener); returns how many. */
  killConnections(): Promise<number>;
  /**
   * Stops (SIGSTOP) the sshd processes serving current connections: the peer goes silent without
   * closing anything, like a network partition. Returns a function that resumes them.
   */
  freezeConnections(): Promise<() => void>;
  /** Runs `/bin/sh -c cmd` as the host's user, in its home, inside its namespace when it runs. */
  exec(cmd: string): Promise<RunResult>;
  /** Host pid of the namespace's init (= the listening sshd), undefined while stopped. */
  initPid(): number | undefined;
  log(): string;
}

export interface SshdHostSpec {
  name: string;
  address: string;
  port: number;
  dir: string;
  user: TestUser;
  hostKeyPath: string;
  hostPublicKey: string;
  hostKeyFingerprint: string;
  authorizedKeysPath: string;
  extraConfig: string[];
}

const SSHD = '/usr/sbin/sshd';
const RUNUSER = fs.existsSync('/usr/sbin/runuser') ? '/usr/sbin/runuser' : 'runuser';

export class SshdHost implements TestHost {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly user: string;
  readonly uid: number;
  readonly home: string;
  readonly hostKeyFingerprint: string;
  readonly hostPublicKey: string;
  readonly logPath: string;
  private readonly configPath: string;
  private proc: ChildProcess | undefined;
  private exited: Promise<void> | undefined;

  constructor(private readonly spec: SshdHostSpec) {
    this.name = spec.name;
    this.address = spec.address;
    this.port = spec.port;
    this.user = spec.user.name;
    this.uid = spec.user.uid;
    this.home = spec.user.home;
    this.hostKeyFingerprint = spec.hostKeyFingerprint;
    this.hostPublicKey = spec.hostPublicKey;
    this.logPath = path.join(spec.dir, 'sshd.log');
    this.configPath = path.join(spec.dir, 'sshd_config');
    fs.writeFileSync(this.configPath, this.config());
  }

  private config(): string {
    const s = this.spec;
    return [
      `ListenAddress ${s.address}:${s.port}`,
      `HostKey ${s.hostKeyPath}`,
      `PidFile ${path.join(s.dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${s.authorizedKeysPath}`,
      'UsePAM no',
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin no',
      `AllowUsers ${s.user.name}`,
      'UseDNS no',
      'PrintMotd no',
      'PrintLastLog no',
      'X11Forwarding no',
      'AllowTcpForwarding yes',
      'Subsystem sftp internal-sftp',
      ...s.extraConfig,
      '',
    ].join('\n');
  }

  initPid(): number | undefined {
    const pid = this.proc?.pid;
    if (pid === undefined || this.proc?.exitCode !== null || this.proc?.signalCode !== null) return undefined;
    try {
      // unshare --fork: the namespace's init is unshare's only child.
      const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      return children.length ? Number(children[0]) : undefined;
    } catch {
      return undefined;
    }
  }

  log(): string {
    try { return fs.readFileSync(this.logPath, 'utf8'); } catch { return ''; }
  }

  async start(): Promise<void> {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) {
      throw new Error(`test host ${this.name} is already running`);
    }
    this.proc = undefined; // a previous sshd that died by itself
    fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const logStart = fs.existsSync(this.logPath) ? fs.statSync(this.logPath).size : 0;
    const logFd = fs.openSync(this.logPath, 'a');
    // setpriv --pdeathsig: if this Node process dies without teardown, unshare gets SIGKILL,
    // and --kill-child takes the namespace down with it. No sshd outlives the test run.
    const proc = spawn('setpriv', ['--pdeathsig', 'KILL', '--',
      'unshare', '--pid', '--fork', '--kill-child', '--mount-proc',
      SSHD, '-D', '-e', '-f', this.configPath], {
      detached: true, // own process group, signalled as a whole on teardown
      stdio: ['ignore', logFd, logFd],
    });
    fs.closeSync(logFd);
    this.proc = proc;
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    proc.once('error', () => { /* reported below as "exited before listening" */ });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const text = this.log().slice(logStart);
      if (/Server listening on /.test(text) && this.initPid() !== undefined) return;
      if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) {
        this.proc = undefined;
        throw new Error(`sshd for test host ${this.name} (${this.address}:${this.port}) exited before listening:\n${text.trim()}`);
      }
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(`sshd for test host ${this.name} did not listen within 10 s:\n${text.trim()}`);
      }
      await sleep(10);
    }
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    const init = this.initPid();
    // Killing the namespace's init makes the kernel kill every process in the namespace, but
    // only once init runs again: unshare (killed with its group) can exit first, and under load
    // a connection's sshd could still answer one more request. Each is killed and waited for.
    const inside = init === undefined ? [] : [init, ...descendants(init).map((p) => p.pid)];
    for (const pid of inside) killQuietly(pid);
    if (proc.pid !== undefined) killQuietly(-proc.pid);
    await this.exited;
    const deadline = Date.now() + 5000;
    while (inside.some((pid) => isAlive(pid) && !isZombie(pid)) && Date.now() < deadline) await sleep(5);
    this.proc = undefined;
  }

  /** Synchronous kill for the process 'exit' hook. */
  stopSync(): void {
    const proc = this.proc;
    if (!proc?.pid) return;
    const init = this.initPid();
    if (init !== undefined) killQuietly(init);
    killQuietly(-proc.pid);
    this.proc = undefined;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async killConnections(): Promise<number> {
    const init = this.initPid();
    if (init === undefined) return 0;
    // Per-connection sshd processes ("sshd: user [priv]", "sshd: user@notty"; "sshd-session"
    // on OpenSSH >= 9.8) are descendants of the listener; the user's own commands are not sshd.
    const victims = descendants(init).filter((p) => p.comm.startsWith('sshd'));
    for (const p of victims) killQuietly(p.pid);
    const deadline = Date.now() + 5000;
    while (victims.some((p) => isAlive(p.pid) && !isZombie(p.pid)) && Date.now() < deadline) await sleep(5);
    return victims.length;
  }

  async freezeConnections(): Promise<() => void> {
    const init = this.initPid();
    if (init === undefined) return () => undefined;
    const frozen = descendants(init).filter((p) => p.comm.startsWith('sshd'));
    for (const p of frozen) killQuietly(p.pid, 'SIGSTOP');
    return () => { for (const p of frozen) killQuietly(p.pid, 'SIGCONT'); };
  }

  exec(cmd: string): Promise<RunResult> {
    const env = {
      HOME: this.home, USER: this.user, LOGNAME: this.user, SHELL: '/bin/bash',
      PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8',
    };
    const asUser = [RUNUSER, '-u', this.user, '--', '/bin/sh', '-c', cmd];
    const init = this.initPid();
    if (init === undefined) return run(asUser[0], asUser.slice(1), { cwd: this.home, env });
    return run('nsenter', ['--target', String(init), '--pid', '--mount', '--', ...asUser], { cwd: this.home, env });
  }
}

function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
}
