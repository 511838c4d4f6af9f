// One well-formed answer per agent command, shaped as agent/README.md documents them (the real
// agent's answers are checked in protocolReal.test.ts); the fuzz test breaks them one field at
// a time. A fake serve channel answers AgentRpc with whatever a test hands it.
import type { AgentCommand, AgentCommands } from '../../../src/core/jobs/commands';
import { agentHash } from '../../../src/core/jobs/agentBundle';
import type { Channel, ExecResult, Transport } from '../../../src/core/transport';

const status = {
  capacity: { cpus: 4.0, memory: 15.6, accelerators: { L4: 1.0 } },
  capacity_source: 'declared',
  used: { cpus: 1.0, memory: 0.0, accelerators: { L4: 0.5 } },
  counts: { INIT: 0, PENDING: 3, SETTING_UP: 0, RUNNING: 1, FAILED_DRIVER: 0, SUCCEEDED: 9, FAILED: 0, FAILED_SETUP: 0, CANCELLED: 2 },
  running: 1,
  pending: 3,
  cluster: { cluster_name: 'c1', node_ips: ['10.0.0.1'] },
  boot_id: '14ad0c6e-1c2b-4a63-9d1e-0d6f3c2b1a00',
  daemon_pid: 4321,
  version: '0.1.0',
  schema_version: 4,
  autostop: {
    idle_minutes: 30, down: false, wait_for: 'jobs_and_ssh', action: 'shutdown',
    idle_seconds: 12.5, fires_in: 1787.5, fired_at: null, last_result: { problems: ['worker 1: ssh failed'] },
  },
  isolation: { mechanism: 'cgroup2', cgroup_root: '/sys/fs/cgroup/user.slice/skydeck-efebe6710a790480' },
};

export const COLUMNS = [
  'job_id', 'name', 'user', 'status', 'submitted_at', 'started_at', 'ended_at', 'exit_code',
  'reason', 'cpus', 'memory', 'accelerators', 'num_nodes', 'driver_pid', 'isolation',
];

export const GOOD: { [K in AgentCommand]: AgentCommands[K]['result'] } = {
  version: { version: '0.1.0', protocol: 2, schema_version: 4, python: '3.11.2', base_dir: '/home/u/.skydeck', marker_prefix: 'efebe6710a790480' },
  submit: { job_id: 17, status: 'RUNNING' },
  queue: {
    db_id: '47d6a9', cursor: 812, full: false, columns: COLUMNS,
    rows: [
      [17, 'train', 'alice', 'RUNNING', 1700000000.12, 1700000000.13, null, null, null, 1.0, 0.0, { L4: 0.25 }, 1, 4242, 'cgroup2'],
      [18, null, null, 'FAILED', 1700000001.5, 1700000001.6, 1700000002.0, 3, 'exit 3', 0.5, 0.0, null, 1, 4300, 'marker'],
    ],
  },
  cancel: { cancelled: [17], already_terminal: [18], grace: 10 },
  logs: { job_id: 1, offset: 524291, status: 'SUCCEEDED', exit_code: 0, reason: null, terminal: true },
  unfollow: { stopped: true },
  status: status as AgentCommands['status']['result'],
  tick: { failed: [3], escalated: [], started: [4, 5] },
  configure: { ...(status as AgentCommands['status']['result']), started: [4] },
  shutdown: { stopped: true, daemon_pid: 4321, escalated: [] },
};

export const HELLO = { id: null, event: 'hello', version: '0.1.0', protocol: 2, pid: 1234, base_dir: '/home/u/.skydeck' };

/** A serve channel: greets with `hello`, then answers each request line with `answer(req)`. */
export class FakeServe implements Channel {
  readonly requests: { id: number; cmd: string; args: unknown }[] = [];
  private data: ((b: Buffer) => void) | undefined;
  private closed: ((code: number | null) => void) | undefined;

  constructor(private readonly answer: (req: { id: number; cmd: string; args: unknown }) => unknown[], private readonly hello: unknown = HELLO) {}

  write(b: Buffer | string): void {
    const req = JSON.parse(b.toString());
    this.requests.push(req);
    setImmediate(() => this.send(this.answer(req)));
  }

  /** Each item becomes one line (objects as JSON, strings as they are); a Buffer goes raw, as a log event's bytes. */
  send(lines: unknown[]): void {
    this.data?.(Buffer.concat(lines.map((l) => (Buffer.isBuffer(l) ? l : Buffer.from((typeof l === 'string' ? l : JSON.stringify(l)) + '\n')))));
  }

  /** Bytes exactly as given (a test cutting the stream its own way). */
  sendRaw(b: Buffer): void {
    this.data?.(b);
  }

  onData(cb: (b: Buffer) => void): void {
    this.data = cb;
    setImmediate(() => this.send([this.hello]));
  }

  onStderr(): void {}
  onClose(cb: (code: number | null) => void): void {
    this.closed = cb;
  }

  end(): void {}
  close(): void {
    this.closed?.(0);
  }
}

/**
 * A node that already runs this Skydeck's agent (the install probe answers with its hash, as
 * bootstrap.ts's VERIFY prints it) and whose `serve` is `serve`. Nothing else is supported.
 */
export function fakeNode(serve: FakeServe): Transport {
  const unsupported = () => Promise.reject(new Error('not part of the fake node'));
  const ok = (stdout: string): ExecResult => ({ code: 0, stdout: Buffer.from(stdout), stderr: Buffer.alloc(0) });
  return {
    description: 'fake-node',
    execShell: async () => ok(`/home/u/.skydeck\n/usr/bin/python3\n${agentHash()}\n`),
    exec: unsupported,
    upload: unsupported,
    openChannel: async () => serve,
    close: async () => undefined,
  };
}
