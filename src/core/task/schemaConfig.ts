// JSON Schema of the task-level `config:` overrides: the subset of SkyPilot's config keys a task
// may override. Values SkyPilot validates loosely are kept loose here.

import { JsonSchema, bool, int, obj, openObject, str } from './schemaHelpers';

const stringOrList = (description: string): JsonSchema => ({
  description,
  anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  errorMessage: 'must be a string or a list of strings',
});

const nullableString = (description: string): JsonSchema => ({ description, type: ['string', 'null'] });

const remoteIdentity = (description: string): JsonSchema => ({
  description,
  anyOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }],
  errorMessage: 'must be a string or a mapping of strings',
});

const sbatchOptions: JsonSchema = {
  type: 'object',
  description: 'Extra #SBATCH options.',
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
};

export function configSchema(): JsonSchema {
  const podFields = {
    custom_metadata: openObject('Labels and annotations for created objects.'),
    pod_config: openObject('Pod spec fields merged into every pod.'),
    provision_timeout: int('Seconds to wait for provisioning.'),
  };
  return obj('Overrides of Skydeck/SkyPilot configuration for this task only.', {
    docker: obj('Docker settings.', { run_options: stringOrList('Extra options for `docker run`.') }),
    nvidia_gpus: obj('NVIDIA GPU settings.', { disable_ecc: bool('Disable ECC on the GPUs.') }),
    ssh: obj('Settings for the ssh cloud.', { ...podFields }),
    kubernetes: obj('Kubernetes settings.', {
      ...podFields,
      dws: openObject('Dynamic Workload Scheduler settings.'),
      kueue: openObject('Kueue settings.'),
      remote_identity: remoteIdentity('Identity the pods use.'),
      enable_docker: { description: 'Docker-in-pod support.', anyOf: [{ type: 'boolean' }, { type: 'string' }, { type: 'object' }] },
    }),
    azure: obj('Azure settings.', {
      remote_identity: str('Identity the VMs use.'),
      vpc_name: nullableString('Virtual network to use.'),
    }),
    gcp: obj('GCP settings.', {
      vpc_name: nullableString('VPC to use (name or project/name).'),
      subnet_names: {
        description: 'Subnets to use.',
        anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'array', items: { type: 'string' } }],
        errorMessage: 'must be a subnet name or a list of names',
      },
      managed_instance_group: obj(
        'Use a managed instance group.',
        { run_duration: int('Seconds the instances may run.'), provision_timeout: int('Seconds to wait.') },
        { required: ['run_duration'] },
      ),
      enable_gvnic: bool('Use gVNIC.'),
      enable_gpu_direct: bool('Use GPUDirect.'),
      placement_policy: str('Placement policy.'),
    }),
    vast: obj('Vast settings.', {
      datacenter_only: bool('Only use datacenter machines.'),
      create_instance_kwargs: openObject('Extra arguments for instance creation.'),
    }),
    slurm: obj('Slurm settings.', {
      sbatch_options: sbatchOptions,
      cpu_partition: str('Partition for CPU-only jobs.'),
    }),
    active_workspace: str('Workspace to use.'),
  });
}
