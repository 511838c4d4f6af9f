// Accepted names for enumerated fields. SkyPilot compares most of them case-insensitively.

/** Every cloud SkyPilot's task schema accepts, plus Skydeck's own `local`. */
export const ALL_CLOUDS = [
  'aws', 'azure', 'gcp', 'ibm', 'lambda', 'scp', 'oci', 'kubernetes', 'runpod', 'vast', 'vsphere',
  'cudo', 'fluidstack', 'paperspace', 'primeintellect', 'do', 'nebius', 'ssh', 'slurm',
  'hyperbolic', 'seeweb', 'shadeform', 'yotta', 'mithril', 'verda', 'local',
] as const;

/** Clouds Skydeck can launch on. The others parse, with a warning. */
export const SKYDECK_CLOUDS = ['aws', 'gcp', 'azure', 'kubernetes', 'ssh', 'local'] as const;

/** Short names accepted in `infra` for Kubernetes. */
export const KUBERNETES_ALIASES = ['kubernetes', 'k8s'] as const;

export const DISK_TIERS = ['low', 'medium', 'high', 'ultra', 'best', 'none'] as const;
export const NETWORK_TIERS = ['standard', 'best'] as const;
export const AUTOSTOP_WAIT_FOR = ['jobs_and_ssh', 'jobs', 'none'] as const;

export const STORE_TYPES = [
  'S3', 'GCS', 'AZURE', 'R2', 'IBM', 'OCI', 'NEBIUS', 'COREWEAVE', 'VASTDATA', 'VOLUME',
] as const;
export const STORAGE_MODES = ['MOUNT', 'COPY', 'MOUNT_CACHED'] as const;
export const FILE_MOUNT_TYPES = ['MODEL_CHECKPOINT_RO', 'MODEL_CHECKPOINT_RW', 'DATASET_RO', 'DATASET_RW'] as const;

export const MIN_PRIORITY = -1000;
export const MAX_PRIORITY = 1000;

/** Memory units SkyPilot accepts in sizes (`32GB`, `512Mi`), as multiples of one GB. */
export const SIZE_UNITS_GB: Record<string, number> = {
  b: 1 / 1024 ** 3,
  k: 1 / 1024 ** 2, kb: 1 / 1024 ** 2, ki: 1 / 1024 ** 2,
  m: 1 / 1024, mb: 1 / 1024, mi: 1 / 1024,
  g: 1, gb: 1, gi: 1,
  t: 1024, tb: 1024, ti: 1024,
  p: 1024 ** 2, pb: 1024 ** 2, pi: 1024 ** 2,
};

/** Autostop duration units, in minutes. */
export const TIME_UNITS_MINUTES: Record<string, number> = { m: 1, h: 60, d: 24 * 60, w: 7 * 24 * 60 };

/** Top-level task fields Skydeck accepts (SkyPilot does) but does not act on yet. */
export const TASK_FIELDS_NOT_ACTED_ON = [
  'event_callback', 'service', 'pool', 'inputs', 'outputs', 'volumes', 'volume_mounts',
  'managed_secrets', 'file_mounts_mapping', 'api_server_access', '_metadata',
] as const;

/** Resources fields Skydeck accepts but does not act on yet. */
export const RESOURCE_FIELDS_NOT_ACTED_ON = [
  'accelerator_args', 'network_tier', 'priority', 'priority_class', 'ephemeral_storage',
  'local_disk', 'max_hourly_cost', 'volumes', '_docker_login_config', '_is_image_managed',
  '_requires_fuse', '_cluster_config_overrides', '_no_missing_accel_warnings',
] as const;

/** A regex source matching any of `words`, ignoring case (JSON Schema regexes have no flags). */
export function caseInsensitivePattern(words: readonly string[]): string {
  const alt = words.map((w) =>
    [...w].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapeRegex(c))).join(''),
  );
  return `^(${alt.join('|')})$`;
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/-]/.test(c) ? `\\${c}` : c;
}
