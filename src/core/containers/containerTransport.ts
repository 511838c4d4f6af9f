import * as fs from 'node:fs';
import type { Channel, ExecOptions, ExecResult, Transport } from '../transport';
import { buildExecCommand } from '../transport/shellQuote';
import type { ContainerHandle } from './image';
import { goneContainer, restartContainer, stoppedContainer } from './restart';

// The agent's documented settings (transport/localEnv.ts): a local cluster's agent reads them
// from the runtime's own environment, so they are passed on by name.
const AGENT_SETTINGS = ['SKYDECK_TICK_INTERVAL', 'SKYDECK_DAEMON_IDLE_EXIT', 'SKYDECK_BOOT_ID_PATH'];

/**
 * Runs every command inside the cluster's container, through `<runtime> exec -i` over the
 * node's own transport (ssh or local). Environment values stay on the inner transport and are
 * passed in by name (`-e NAME`), so they reach the container the way they reach the node.
 * The agent, the syncs, `skydeck exec` and the log streams all go through here unchanged.
 */
export class ContainerTransport implements Transport {
  readonly description: string;

  /** `onRestart` hears of a stopped container this transport started again (restart.ts). */
  constructor(readonly host: Transport, readonly container: ContainerHandle, private readonly onRestart?: (message: string) => void) {
    this.description = `${host.description} container ${container.name}`;
  }

  private wrap(argv: string[], opts?: { env?: Record<string, string>; cwd?: string }): string[] {
    const names = [...new Set([...Object.keys(opts?.env ?? {}), ...(this.host.description === 'local' ? AGENT_SETTINGS.filter((n) => process.env[n] !== undefined) : [])])];
    // A cwd is entered by a shell inside the container: "~/" is the container user's home.
    const inner = opts?.cwd ? ['/bin/sh', '-c', buildExecCommand(argv, { cwd: opts.cwd })] : argv;
    return [this.container.runtime, 'exec', '-i', ...names.flatMap((n) => ['-e', n]), this.container.name, ...inner];
  }

  private env(opts?: { env?: Record<string, string> }): Record<string, string> | undefined {
    const settings = this.host.description === 'local' ? Object.fromEntries(AGENT_SETTINGS.filter((n) => process.env[n] !== undefined).map((n) => [n, process.env[n] as string])) : {};
    const env = { ...settings, ...(opts?.env ?? {}) };
    return Object.keys(env).length ? env : undefined;
  }

  /**
   * A command that finds the container stopped starts it and runs once more. Every (re)connect
   * of the agent begins with such a command (the installer's probe), so a cluster whose node
   * rebooted works again at its next use. A stream on stdin cannot be replayed: no retry then.
   */
  async exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const run = () => this.host.exec(this.wrap(argv, opts), { ...opts, cwd: undefined, env: this.env(opts) });
    const r = await run();
    const gone = goneContainer(r);
    if (!gone && !stoppedContainer(r)) return r;
    // The runtime is asked (restartContainer names a removed container): a command's own
    // message that only looks like the runtime's is no reason to run it again.
    const started = await restartContainer(this.host, this.container);
    if (started) this.onRestart?.(`container ${this.container.name} on ${this.host.description} was stopped (a reboot of the node, or stopped outside Skydeck): started it again; jobs that were running in it are FAILED_DRIVER`);
    const replayable = opts.stdin === undefined || typeof opts.stdin === 'string' || Buffer.isBuffer(opts.stdin);
    // Found running though it said "not running": another command started it meanwhile.
    if (!replayable || (gone && !started)) return r;
    return run();
  }

  execShell(script: string, opts: ExecOptions = {}): Promise<ExecResult> {
    return this.exec(['/bin/sh', '-c', script], opts);
  }

  openChannel(argv: string[], opts: Omit<ExecOptions, 'stdin' | 'onStdout' | 'onStderr'> = {}): Promise<Channel> {
    return this.host.openChannel(this.wrap(argv, opts), { ...opts, cwd: undefined, env: this.env(opts) });
  }

  /** A file only (nothing in Skydeck uploads a tree through a transport): streamed into place. */
  async upload(localPath: string, remotePath: string): Promise<void> {
    if (fs.statSync(localPath).isDirectory()) throw new Error(`${this.description}: uploading a directory into a container is not supported`);
    const place = 'import os,sys,shutil; p=os.path.expanduser(sys.argv[1]); os.makedirs(os.path.dirname(p) or ".", exist_ok=True); t=p+".skydeck-tmp"\n' +
      'with open(t,"wb") as f: shutil.copyfileobj(sys.stdin.buffer,f)\nos.chmod(t,int(sys.argv[2],8)); os.replace(t,p)';
    const mode = (fs.statSync(localPath).mode & 0o7777).toString(8);
    const r = await this.exec(['python3', '-c', place, remotePath, mode], { stdin: fs.createReadStream(localPath) });
    if (r.code !== 0) throw new Error(`uploading ${localPath} to ${this.description} failed: ${r.stderr.toString().trim()}`);
  }

  close(): Promise<void> {
    return this.host.close();
  }
}
