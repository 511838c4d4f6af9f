// The task YAML JSON Schema (draft-07). It accepts every field SkyPilot's task schema accepts;
// scripts/write-schema.ts writes it to schemas/task.schema.json for the editor.

import { FILE_MOUNT_TYPES, STORAGE_MODES, STORE_TYPES } from './names';
import { configSchema } from './schemaConfig';
import { JsonSchema, bool, choice, int, obj, openObject, str } from './schemaHelpers';
import { candidateSchema, resourcesSchema } from './schemaResources';

export const ENV_NAME_PATTERN = '^[a-zA-Z_][a-zA-Z0-9_]*$';

const storageMount = obj('A bucket or volume mounted at this path.', {
  name: str('Bucket name (created if it does not exist).'),
  source: {
    description: 'What to upload or mount: a local path, a bucket URL (s3://, gs://, ...), or a list of local paths.',
    anyOf: [{ type: 'string' }, { type: 'array', minItems: 1, items: { type: 'string' } }],
    errorMessage: 'must be a path or bucket URL, or a non-empty list of paths',
  },
  store: choice(STORE_TYPES, 'Object store for a new bucket: S3, GCS, AZURE, R2, IBM, OCI, NEBIUS, COREWEAVE, VASTDATA or VOLUME.', true),
  persistent: bool('Keep the bucket after the cluster is torn down (default true).'),
  mode: choice(STORAGE_MODES, 'MOUNT (default, streamed), COPY (copied once) or MOUNT_CACHED.', true),
  type: choice(FILE_MOUNT_TYPES, 'Kind of content, e.g. MODEL_CHECKPOINT_RO.', true),
  config: openObject('Store-specific options (disk_size, mount_cached, ...).'),
  _is_sky_managed: bool('Internal.'),
  _bucket_sub_path: str('Internal.'),
  _force_delete: bool('Internal.'),
});

const countMap = (description: string): JsonSchema => ({
  type: 'object',
  description,
  maxProperties: 1,
  additionalProperties: { type: 'number' },
});

function buildTaskSchema(): JsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'SkyPilot task',
    description: 'A SkyPilot task YAML, as launched by Skydeck.',
    ...obj('A SkyPilot task YAML, as launched by Skydeck.', {
      name: str('Task name; shown in the job queue.'),
      workdir: {
        description:
          'Directory synced to ~/sky_workdir on every node before setup and run: a local path, ' +
          'or a git repository `{url, ref}`.',
        anyOf: [
          { type: 'string' },
          obj('A git repository.', { url: str('Repository URL.'), ref: str('Branch, tag or commit.') }, { required: ['url'] }),
        ],
        errorMessage: 'must be a local path or a mapping {url, ref}',
        examples: ['.', '~/src/project'],
      },
      num_nodes: int('Number of nodes; run executes on every node.', { minimum: 1, examples: [1, 2, 4] }),
      resources: resourcesSchema(),
      envs: {
        type: 'object',
        description:
          'Environment variables for setup and run. A variable left empty (`HF_TOKEN:`) must be given at launch with `--env`.',
        // Numbers and booleans are accepted and turned into strings, as SkyPilot does.
        patternProperties: { [ENV_NAME_PATTERN]: { type: ['string', 'number', 'boolean', 'null'] } },
        additionalProperties: false,
      },
      secrets: {
        description:
          'Like envs, but values are redacted from logs and the dashboard. A mapping, or a list of `secrets:NAME` references.',
        anyOf: [
          { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
          { type: 'array', items: { type: 'string' } },
        ],
        errorMessage: 'must be a mapping of names to values or a list of secrets:NAME references',
        examples: [{ HF_TOKEN: null }],
      },
      file_mounts: {
        type: 'object',
        description:
          'Files to put on the nodes, keyed by destination path. A value is a local path or bucket URL, ' +
          'or `{name, source, store, mode, persistent}` for a bucket.',
        additionalProperties: {
          anyOf: [{ type: 'string' }, storageMount],
          errorMessage: 'must be a source path or URL, or a mapping {source, name, store, mode, persistent}',
          examples: ['s3://my-bucket/data'],
        },
      },
      setup: str('Commands run once on every node after it is provisioned (or when the task changes).'),
      run: str('Commands the job runs on every node.'),
      config: configSchema(),
      event_callback: str('Command run on job events (not used by Skydeck).'),
      service: openObject('SkyServe service settings (not used by Skydeck).'),
      pool: openObject('Worker pool settings (not used by Skydeck).'),
      inputs: countMap('Input data and its size in GB, used for cost estimates (not used by Skydeck).'),
      outputs: countMap('Output data and its size in GB (not used by Skydeck).'),
      volumes: openObject('Volumes to mount, keyed by path (not used by Skydeck).'),
      volume_mounts: {
        type: 'array',
        description: 'Internal volume mounts (not used by Skydeck).',
        items: obj('A volume mount.', {
          path: str('Mount path.'),
          volume_name: str('Volume name.'),
          is_ephemeral: bool('Ephemeral volume.'),
          sub_path: str('Sub-path in the volume.'),
          volume_config: { type: 'object', description: 'Volume config.' },
        }),
      },
      managed_secrets: {
        type: 'array',
        description: 'Managed secret references (not used by Skydeck).',
        items: {
          anyOf: [{ type: 'string' }, { type: 'object', maxProperties: 1 }],
          errorMessage: 'must be a secret name or a one-entry mapping',
        },
      },
      file_mounts_mapping: openObject('Internal.'),
      api_server_access: bool('Give the job access to the SkyPilot API server (not used by Skydeck).'),
      _metadata: openObject('Internal.'),
    }),
    // $ref is only used outside anyOf, so validation errors keep simple schema paths.
    definitions: { resourcesCandidate: candidateSchema() },
  };
}

/** The JSON schema of one task document. */
export const taskSchema: JsonSchema = buildTaskSchema();

/** The schema as written to schemas/task.schema.json (pretty JSON, trailing newline). */
export function taskSchemaJson(): string {
  return `${JSON.stringify(taskSchema, null, 2)}\n`;
}
