// The typed shape of a parsed SkyPilot task. Everything here is plain data so it can be
// stored, sent to a webview or compared in tests.

import type { BucketMount } from '../storage/types';

/** One problem found in a task file. Lines and columns are 1-based; end is exclusive. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  file: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  /** Field path such as `resources.accelerators` or `file_mounts["/data"].mode`; '' for the document. */
  path: string;
  message: string;
  hint?: string;
}

export interface ParseResult {
  /** One task per non-empty YAML document. */
  tasks: Task[];
  diagnostics: Diagnostic[];
  /** True when no diagnostic is an error. */
  ok: boolean;
}

export interface ParseOptions {
  /** Values for `envs` given at launch (`--env`); they override the file and fill null envs. */
  env?: Record<string, string>;
}

/** A count or size with SkyPilot's `N+` ("at least N") form. Memory and disk are in GB. */
export interface Quantity {
  min: number;
  orMore: boolean;
}

/** One accelerator choice, e.g. `A100:8` -> {name: 'A100', count: 8}. */
export interface AcceleratorOption {
  name: string;
  count: number;
  /** Set for memory-based requests like `80GB+` or `nvidia:24GB:2`, where `name` is the spec. */
  memory?: { gb: number; orMore: boolean; manufacturer?: string };
}

export interface JobRecovery {
  strategy?: string | null;
  maxRestartsOnErrors?: number;
  recoverOnExitCodes?: number[];
}

export interface Autostop {
  enabled: boolean;
  /** Idle minutes before stopping; undefined means the default. */
  idleMinutes?: number;
  /** Tear down instead of stop. */
  down: boolean;
  waitFor?: string;
  hook?: string;
  hookTimeout?: number;
}

export interface PortRange {
  from: number;
  to: number;
}

export interface Resources {
  cloud?: string;
  region?: string;
  zone?: string;
  /** The `infra` string as written; cloud/region/zone above are filled from it. */
  infra?: string;
  cpus?: Quantity;
  memory?: Quantity;
  /** Accelerator choices; empty when none is requested. */
  accelerators: AcceleratorOption[];
  /** True when accelerators were given as a list: earlier entries are preferred. */
  acceleratorsOrdered: boolean;
  instanceType?: string;
  useSpot: boolean;
  jobRecovery?: JobRecovery;
  /** GB. */
  diskSize?: number;
  diskTier?: string;
  ports: PortRange[];
  imageId?: string | Record<string, string>;
  labels: Record<string, string>;
  autostop?: Autostop;
  /** `any_of` candidates, each already merged with the fields around it. */
  anyOf?: Resources[];
  /** `ordered` candidates (first preferred), each already merged with the fields around it. */
  ordered?: Resources[];
}

/**
 * One `file_mounts` entry. `copy`: a local file or directory copied to the node. `bucket`: a
 * cloud bucket (see storage/types.ts). `unsupported`: a store SkyPilot has and Skydeck cannot
 * use yet (IBM COS, OCI, ..., volumes). `deferred`: its source or store comes from an env given
 * only at launch, so it is checked then (a launch always parses with every env filled in).
 */
export type FileMount =
  | { kind: 'copy'; source: string }
  | {
      kind: 'bucket';
      mount: BucketMount;
      /** MOUNT_CACHED/MOUNT tuning (`config:`), passed on as written. */
      config?: Record<string, unknown>;
      /** SkyPilot's workload preset (`type:`, e.g. MODEL_CHECKPOINT_RO), upper case. */
      preset?: string;
    }
  | { kind: 'unsupported'; store: string }
  | { kind: 'deferred' };

/** A git repository cloned as the workdir; `ref` is a branch, tag or commit (default branch if absent). */
export interface GitWorkdir {
  url: string;
  ref?: string;
}

export type Workdir = string | GitWorkdir;

export interface Task {
  name?: string;
  workdir?: Workdir;
  numNodes: number;
  resources: Resources;
  /** null values must be supplied at launch (`--env NAME=value`). */
  envs: Record<string, string | null>;
  /** The list form (`[secrets:NAME]`) becomes keys with null values. */
  secrets: Record<string, string | null>;
  /** Keyed by the destination path on the cluster. */
  fileMounts: Record<string, FileMount>;
  setup?: string;
  run?: string;
  config?: Record<string, unknown>;
  /** The document as plain JSON, exactly as written. */
  raw: unknown;
  /** 0-based index of the YAML document this task came from. */
  docIndex: number;
}
