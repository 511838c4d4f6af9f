// JSON Schema of `resources:` and of each `any_of` / `ordered` candidate.

import {
  ALL_CLOUDS, AUTOSTOP_WAIT_FOR, DISK_TIERS, KUBERNETES_ALIASES, MAX_PRIORITY, MIN_PRIORITY, NETWORK_TIERS,
  caseInsensitivePattern,
} from './names';
import { JsonSchema, TIME_PATTERN, bool, choice, int, num, obj, openObject, size, str, stringMap } from './schemaHelpers';

const ONE_PART = '[^/]+';
const clouds = ALL_CLOUDS.filter((c) => c !== 'kubernetes');
const cloudAlt = caseInsensitivePattern(clouds).slice(1, -1);
const k8sAlt = caseInsensitivePattern(KUBERNETES_ALIASES).slice(1, -1);
/** cloud[/region[/zone]], `*` wildcards, or a Kubernetes context (which may contain slashes). */
export const INFRA_PATTERN =
  `^(?:${cloudAlt}(?:/${ONE_PART}(?:/${ONE_PART})?)?` +
  `|\\*(?:/${ONE_PART}(?:/${ONE_PART})?)?` +
  `|${k8sAlt}(?:/.+)?)$`;

// The string forms (`A100:8`, `80GB+`) are checked by accelerators.ts, with better messages.
const ACCELERATOR_STRING = { type: 'string' };

const ACCELERATORS_HELP =
  'must be a name with an optional count (A100, A100:8, L4:0.25), a mapping such as {A100: 8}, or a list of names';

const accelerators: JsonSchema = {
  description:
    'Accelerators to attach to each node: `A100:8`, `L4:0.25` (a fraction of one GPU, for sharing), ' +
    'a mapping `{A100: 8}`, a set `{V100, A100}` (any of), or a list `[V100, A100]` (in order of preference). ' +
    'Memory-based requests such as `80GB+` or `nvidia:24GB:2` are accepted too.',
  anyOf: [
    ACCELERATOR_STRING,
    {
      type: 'object',
      additionalProperties: {
        anyOf: [{ type: 'number', exclusiveMinimum: 0 }, { type: 'null' }],
        errorMessage: 'must be a count such as 8 or 0.5, or empty for 1',
        examples: [8],
      },
    },
    { type: 'array', items: ACCELERATOR_STRING },
  ],
  errorMessage: ACCELERATORS_HELP,
  examples: ['A100:8', 'L4:0.25', 'H100'],
};

/** Candidates of any_of / ordered take one accelerator: a string or a one-entry mapping. */
const candidateAccelerators: JsonSchema = {
  description: 'Accelerator for this candidate, e.g. `A100:8` or `{A100: 8}`.',
  anyOf: [
    ACCELERATOR_STRING,
    { type: 'object', maxProperties: 1, additionalProperties: { type: 'number', exclusiveMinimum: 0 } },
  ],
  errorMessage: 'must be one accelerator with an optional count (A100:8) or a one-entry mapping such as {A100: 8}',
  examples: ['A100:8', 'L4:0.25'],
};

const cpusOrMemoryHelp = (what: string, unit: string) => ({
  anyOf: [{ type: 'number', exclusiveMinimum: 0 }, { type: 'string' }],
  errorMessage: `must be a number${unit} or "<number>+" for at least that many ${what}`,
});

const jobRecovery: JsonSchema = {
  description:
    'How a managed job recovers after a preemption or failure: a strategy name (`FAILOVER`, ' +
    '`EAGER_NEXT_REGION`) or a mapping with `strategy`, `max_restarts_on_errors` and `recover_on_exit_codes`.',
  anyOf: [
    { type: 'string' },
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        strategy: { description: 'Recovery strategy, e.g. FAILOVER or EAGER_NEXT_REGION.', type: ['string', 'null'] },
        max_restarts_on_errors: int('How many times to restart the job when it fails with an error (not a preemption).', { minimum: 0 }),
        recover_on_exit_codes: {
          description: 'Exit codes that always trigger a restart.',
          anyOf: [
            { type: 'integer', minimum: 0, maximum: 255 },
            { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 }, uniqueItems: true },
          ],
          errorMessage: 'must be an exit code (0-255) or a list of exit codes',
        },
      },
    },
  ],
  errorMessage: 'must be a strategy name (FAILOVER, EAGER_NEXT_REGION) or a mapping with strategy and max_restarts_on_errors',
  examples: ['FAILOVER', 'EAGER_NEXT_REGION'],
};

const autostop: JsonSchema = {
  description:
    'Stop the cluster after it has been idle: `true` (default idle time), `false`, minutes (`10`), ' +
    'a duration (`"10m"`, `"2h"`, `"1d"`), or `{idle_minutes, down, wait_for, hook, hook_timeout}`.',
  anyOf: [
    { type: 'boolean' },
    { type: 'integer', minimum: 0 },
    {
      type: 'string',
      pattern: TIME_PATTERN,
      patternErrorMessage: 'must be minutes or a duration such as 10m, 2h, 1d, 1w',
      examples: ['30m'],
    },
    obj('Autostop settings.', {
      idle_minutes: int('Idle minutes before stopping.', { minimum: 0 }),
      down: bool('Tear the cluster down instead of stopping it.'),
      wait_for: choice(AUTOSTOP_WAIT_FOR, 'What counts as activity: jobs_and_ssh (default), jobs, or none.'),
      hook: str('Shell script run on the head node before autostop.'),
      hook_timeout: int('Seconds to wait for the hook.', { minimum: 1 }),
    }),
  ],
  errorMessage: 'must be true, false, minutes (10), a duration ("10m", "2h") or a mapping with idle_minutes and down',
  examples: [true, 10, '30m', { idle_minutes: 10, down: true }],
};

const ports: JsonSchema = {
  description: 'Ports to open on the cluster: `8080`, a range `"8000-8010"`, or a list of these.',
  anyOf: [
    { type: 'integer' },
    { type: 'string' },
    { type: 'array', items: { anyOf: [{ type: 'integer' }, { type: 'string' }], errorMessage: 'must be a port or a range such as "8000-8010"' } },
    { type: 'null' },
  ],
  errorMessage: 'must be a port (8080), a range ("8000-8010") or a list of them',
  examples: [8080, '8000-8010', [22, 8888]],
};

const volume = {
  type: 'object',
  properties: {
    disk_size: size('Size of the volume.'),
    disk_tier: str('Performance tier of the volume.'),
    path: str('Mount path.'),
    auto_delete: bool('Delete the volume with the cluster.'),
    storage_type: str('Storage type.'),
    name: str('Volume name.'),
    attach_mode: str('Attach mode.'),
  },
};

/** Fields shared by `resources:` and its candidates (accelerators differ). */
function commonFields(): Record<string, JsonSchema> {
  return {
    cloud: {
      ...choice(ALL_CLOUDS, 'Cloud to use. Skydeck launches on aws, gcp, azure, ssh (your machines) and local (this machine).'),
      patternErrorMessage: 'must be a cloud name such as aws, gcp, azure, ssh or local',
      examples: ['aws', 'gcp', 'azure', 'ssh', 'local'],
    },
    region: str('Region, e.g. us-east-1.', { examples: ['us-east-1', 'us-central1', 'eastus'] }),
    zone: str('Zone, e.g. us-east-1a.', { examples: ['us-east-1a', 'us-central1-a'] }),
    infra: str('Where to run, as cloud[/region[/zone]], e.g. `aws/us-east-1`; `*` is a wildcard; `k8s/<context>` for Kubernetes.', {
      pattern: INFRA_PATTERN,
      patternErrorMessage: 'must be cloud[/region[/zone]], e.g. aws/us-east-1, or */region',
      examples: ['aws', 'aws/us-east-1', 'gcp/us-central1/us-central1-a', 'local'],
    }),
    cpus: {
      description: 'vCPUs per node: a number (`4`) or `"4+"` for at least 4.',
      ...cpusOrMemoryHelp('vCPUs', ''),
      examples: [4, '4+', '8+'],
    },
    memory: {
      description: 'Memory per node in GB: a number (`32`), `"32+"` for at least 32 GB, or a size such as `"64GB"`.',
      ...cpusOrMemoryHelp('GB', ' of GB'),
      examples: [32, '32+', '64GB+'],
    },
    gpus: { ...accelerators, description: 'Alias of `accelerators`.' },
    instance_type: str('Instance type, e.g. p3.2xlarge; overrides cpus and memory.', { examples: ['p3.2xlarge', 'n1-standard-8'] }),
    use_spot: bool('Use spot (preemptible) instances.'),
    job_recovery: jobRecovery,
    spot_recovery: { ...jobRecovery, description: 'Deprecated name of `job_recovery`.' },
    disk_size: size('OS disk size per node, in GB or with a unit (`"1TB"`). Default 256.'),
    disk_tier: choice(DISK_TIERS, 'Disk performance: low, medium, high, ultra or best.'),
    network_tier: choice(NETWORK_TIERS, 'Network performance: standard or best.'),
    ports,
    image_id: {
      description: 'Machine or container image: a string (`docker:ubuntu:22.04`, an AMI id) or a mapping of region to image.',
      anyOf: [{ type: 'string' }, stringMap('Image per region.'), { type: 'null' }],
      errorMessage: 'must be an image id or a mapping of region to image id',
      examples: ['docker:ubuntu:22.04'],
    },
    labels: stringMap('Labels (tags) put on the instances; values must be strings.'),
    autostop,
    accelerator_args: obj('Accelerator options (TPUs).', {
      runtime_version: str('TPU runtime version.'),
      tpu_name: str('TPU name.'),
      tpu_vm: bool('Use a TPU VM.'),
      gcp_queued_resource: bool('Use a GCP queued resource.'),
    }),
    ephemeral_storage: size('Ephemeral storage (Kubernetes).'),
    local_disk: str('Local disk request.'),
    max_hourly_cost: num('Upper bound on the hourly price of a node.', { exclusiveMinimum: 0 }),
    priority: int(`Job priority, ${MIN_PRIORITY} to ${MAX_PRIORITY}.`, { minimum: MIN_PRIORITY, maximum: MAX_PRIORITY }),
    priority_class: str('Kubernetes priority class.'),
    volumes: { type: 'array', description: 'Extra disks to attach.', items: volume },
    _docker_login_config: obj(
      'Internal: docker registry login.',
      { username: str('User.'), password: str('Password.'), server: str('Server.') },
      { required: ['username', 'password', 'server'] },
    ),
    _no_missing_accel_warnings: bool('Internal.'),
    _is_image_managed: bool('Internal.'),
    _requires_fuse: bool('Internal.'),
    _cluster_config_overrides: openObject('Internal.'),
  };
}

/** Where the task schema keeps candidateSchema() (written once, used by any_of and ordered). */
export const CANDIDATE_REF = '#/definitions/resourcesCandidate';

/** Schema of one `any_of` / `ordered` candidate: no nested candidates. */
export function candidateSchema(): JsonSchema {
  return obj('A resources candidate; its fields override the ones around it.', {
    ...commonFields(),
    accelerators: candidateAccelerators,
    gpus: { ...candidateAccelerators, description: 'Alias of `accelerators`.' },
  });
}

export function resourcesSchema(): JsonSchema {
  return obj('Resources each node needs, and where to run.', {
    ...commonFields(),
    accelerators,
    any_of: {
      type: 'array',
      description: 'Candidates of which any one will do; each overrides the fields around it.',
      items: { $ref: CANDIDATE_REF },
    },
    ordered: {
      type: 'array',
      description: 'Candidates in order of preference; each overrides the fields around it.',
      items: { $ref: CANDIDATE_REF },
    },
  });
}
