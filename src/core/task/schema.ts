// The task YAML JSON Schema (draft-07). It accepts every field SkyPilot's task schema accepts;
// scripts/write-schema.ts writes it to schemas/task.schema.json for the editor.

import { FILE_MOUNT_TYPES, STORAGE_MODES, STORE_TYPES } from './names';
import { configSchema } from './schemaConfig';
import { JsonSchema, bool, choice, int, obj, openObject, str } from './schemaHelpers';
import { candidateSchema, resourcesSchema } from './schemaResources';

export const ENV_NAME_PATTERN = '^[a-zA-Z_][a-zA-Z0-9_]*$';

// The bucket forms are SkyPilot's ("Cloud Buckets" in its docs); bucketMounts.ts checks how
// the fields combine, which a schema cannot say with useful messages.
const storageMount = obj(
  'A cloud bucket mounted at this path. Existing bucket: `{source: s3://bucket/path, mode}`. ' +
    'New (or reused) bucket: `{name, store, mode, persistent}`, plus `source: <local dir>` to upload into it.',
  {
    name: str(
      'Name of a bucket Skydeck creates if it does not exist (and reuses if it does). Checked against the ' +
        "store's naming rules; not used with a bucket URL source.",
      { examples: ['my-checkpoints'] },
    ),
    source: {
      description:
        'An existing bucket: s3://bucket[/path], gs://bucket[/path], r2://bucket[/path] or ' +
        'https://<account>.blob.core.windows.net/<container>[/path]. Or, with `name`, a local directory ' +
        '(or a list of local files) uploaded into the new bucket; changed files are uploaded again on later launches.',
      anyOf: [{ type: 'string' }, { type: 'array', minItems: 1, items: { type: 'string' } }],
      errorMessage: 'must be a path or bucket URL, or a non-empty list of paths',
      examples: ['s3://my-bucket/datasets', '~/datasets'],
    },
    store: choice(STORE_TYPES,
      'Object store of a new bucket: s3, gcs, azure or r2 (Skydeck runs these four; SkyPilot also names IBM, OCI, ' +
        "NEBIUS, COREWEAVE, VASTDATA and VOLUME). Defaults to the task's cloud: aws -> s3, gcp -> gcs, azure -> azure.", true),
    persistent: bool('Keep the bucket after the cluster is torn down (default true). false: a bucket Skydeck created is deleted at down.'),
    mode: choice(STORAGE_MODES,
      'MOUNT (default): streamed through a FUSE mount, writes go to the bucket. COPY: downloaded before setup, ' +
        'writes stay on the node. MOUNT_CACHED: mounted with a local write cache, uploaded before the job counts as done.', true),
    type: choice(FILE_MOUNT_TYPES, 'MOUNT_CACHED tuning preset, e.g. MODEL_CHECKPOINT_RO.', true),
    config: openObject('Mount tuning (mount, mount_cached), passed on as written.'),
    _is_sky_managed: bool('Internal.'),
    _bucket_sub_path: str('Internal.'),
    _force_delete: bool('Internal.'),
  },
);

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
          'or a git repository `{url, ref}` cloned there (ref: a branch, tag or commit; the default branch if absent).',
        anyOf: [
          { type: 'string' },
          obj('A git repository cloned as the workdir.', {
            url: str('Repository URL: https://host/owner/repo, ssh://git@host/owner/repo or git@host:owner/repo.'),
            ref: str('Branch, tag or commit to check out (default: the default branch).'),
          }, { required: ['url'] }),
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
          'Files to put on the nodes, keyed by destination path. A value is a local path (copied), a bucket URL ' +
          '(s3://, gs://, r2://, https://<account>.blob.core.windows.net/...: its objects are downloaded, COPY), ' +
          'or a bucket mapping `{source | name, store, mode, persistent}`.',
        additionalProperties: {
          description:
            'A local file or directory copied to this path; a bucket URL whose objects are downloaded here (COPY); ' +
            'or a mapping: `{source: <bucket URL>, mode}` for an existing bucket, `{name, store, mode, persistent}` ' +
            'for a bucket Skydeck creates, with `source: <local dir>` to upload into it.',
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
