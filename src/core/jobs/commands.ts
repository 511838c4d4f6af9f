// Every command of the agent's serve protocol with its argument and result types, in one map
// (agent/README.md, "Commands", is the reference). AgentRpc.request takes a key of this map,
// and protocolChecks.ts holds one runtime check per result, typed against it.
import type { CancelResult, JobSpec, LogsFinal, QueueAnswer, SubmitResult } from './protocol';

/**
 * The protocol this client speaks; the agent names its own in the `hello` greeting (serve.py).
 * Must equal PROTOCOL in agent/skydeck_agent_lib/__init__.py (a test compares them): both
 * are bumped together when a request or result shape changes incompatibly.
 */
export const AGENT_PROTOCOL = 2;

type NoArgs = Record<string, never>;

/** The first line serve writes, before any request: who answers and in which protocol. */
export interface Hello {
  event: 'hello';
  version: string;
  protocol: number;
  pid: number;
  base_dir: string;
}

export interface VersionResult {
  version: string;
  protocol: number;
  schema_version: number;
  python: string;
  base_dir: string;
  marker_prefix: string;
}

export interface QueueArgs {
  since?: number;
  db_id?: string | null;
  user?: string;
  job_ids?: number[];
}

export interface CancelArgs {
  job_ids?: number[];
  all?: true;
  user?: string;
  grace?: number;
}

export interface LogsArgs {
  job_id: number;
  offset?: number;
  follow?: boolean;
  rank?: number;
}

/** cpus, memory (GB) and accelerator counts by name (null: none). */
export interface Amounts {
  cpus: number;
  memory: number;
  accelerators: Record<string, number> | null;
}

export interface AutostopConfig {
  idle_minutes: number;
  down?: boolean;
  action?: 'shutdown' | 'gcp' | 'azure' | 'kubernetes';
  command?: string[];
  wait_for?: 'jobs_and_ssh' | 'jobs';
  /** A managed-jobs controller's store on the node: busy while it lists an unfinished job. */
  managed_jobs_db?: string;
  /** A launch under way: busy for this long (until its job is in), idle time counts from its end. */
  hold_seconds?: number;
}

/** `status.autostop`: the setting and its clock (autostop.py `state`). */
export interface AutostopState {
  idle_minutes: number;
  down: boolean;
  wait_for: string | null;
  action: string | null;
  /** Set on a managed-jobs controller cluster (an agent before it leaves the key out). */
  managed_jobs_db?: string | null;
  idle_seconds: number | null;
  fires_in: number | null;
  fired_at: number | null;
  /** Epoch seconds: a launch's hold keeps the node busy until then (an agent before it leaves the key out). */
  held_until?: number | null;
  /** What the last self-stop did (selfstop.py); problems mean the nodes may still bill. */
  last_result: { problems: string[] } | null;
}

export interface StatusResult {
  capacity: Amounts;
  capacity_source: 'declared' | 'detected';
  used: Amounts;
  counts: Record<string, number>;
  /** SETTING_UP and RUNNING jobs. */
  running: number;
  pending: number;
  cluster: { cluster_name?: string | null; node_ips?: string[] | null };
  boot_id: string | null;
  daemon_pid: number | null;
  version: string;
  schema_version: number;
  autostop: AutostopState | null;
  isolation: { mechanism: string; cgroup_root?: string; why?: string };
}

export type WorkerAddress = SshWorker | KubeWorker;

/** A worker the head reaches with ssh and the cluster key. */
export interface SshWorker {
  address: string;
  port: number;
  user: string;
  python: string;
  agent: string;
  base: string;
  /** A container cluster's worker: the head runs `<runtime> exec -i <name> …` there over ssh. */
  container?: { runtime: string; name: string };
}

/** A worker pod the head reaches through the API server's exec (agent/skydeck_agent_lib/kexec.py). */
export interface KubeWorker {
  /** server: the API's https URL as the head pod reaches it; absent = the in-cluster service. */
  kube: { namespace: string; pod: string; container: string; server?: string };
  python: string;
  agent: string;
  base: string;
}

/** Every key optional: a present key replaces the stored value, null clears it. */
export interface ConfigureArgs {
  cluster_name?: string | null;
  node_ips?: string[] | null;
  cluster_info?: Record<string, unknown> | null;
  capacity?: { cpus?: number; memory?: number; accelerators?: string | Record<string, number> } | null;
  workers?: WorkerAddress[];
  /** Kubernetes: the head pod itself, which autodown deletes last (agent kube_stop.py). */
  kube_head?: { namespace: string; pod: string; container: string; server?: string } | null;
  autostop?: AutostopConfig | null;
  /** Look at the node's devices again (nvidia-smi); otherwise they are looked at once per boot. */
  detect?: boolean;
}

export interface ShutdownResult {
  stopped: boolean;
  daemon_pid: number | null;
  escalated: number[];
}

export interface TickResult {
  failed: number[];
  escalated: number[];
  started: number[];
}

export interface AgentCommands {
  version: { args: NoArgs; result: VersionResult };
  submit: { args: JobSpec; result: SubmitResult };
  queue: { args: QueueArgs; result: QueueAnswer };
  cancel: { args: CancelArgs; result: CancelResult };
  /** Streams LogEvents before its result (AgentRpc.start). */
  logs: { args: LogsArgs; result: LogsFinal };
  /** `request` is the id of an open `logs` request on the same channel. */
  unfollow: { args: { request: number }; result: { stopped: boolean } };
  status: { args: NoArgs; result: StatusResult };
  tick: { args: NoArgs; result: TickResult };
  configure: { args: ConfigureArgs; result: StatusResult & { started: number[] } };
  shutdown: { args: NoArgs; result: ShutdownResult };
}

export type AgentCommand = keyof AgentCommands;
export type ArgsOf<K extends AgentCommand> = AgentCommands[K]['args'];
export type ResultOf<K extends AgentCommand> = AgentCommands[K]['result'];
