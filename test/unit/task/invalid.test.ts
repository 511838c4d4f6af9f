// Invalid task documents (top level, envs, secrets, file mounts, YAML syntax, documents) with
// the exact diagnostics expected. See invalid-resources.test.ts for resources.

import assert from 'node:assert/strict';
import { parseTaskText } from '../../../src/core/task';
import { InvalidCase, checkCases, errorCount } from './invalidHarness';
import { resourceCases } from './invalidResourceCases';

const cases: InvalidCase[] = [
  {
    name: 'misspelled top-level field',
    text: 'nmae: train\nrun: echo\n',
    expect: [
      ['error', 1, 1, 'nmae', 'unknown field "nmae"', 'did you mean "name"?'],
    ],
  },
  {
    name: 'resources field at top level',
    text: 'accelerators: A100\nrun: echo\n',
    expect: [
      ['error', 1, 1, 'accelerators', 'unknown field "accelerators"', '"accelerators" belongs under resources:'],
    ],
  },
  {
    name: 'config field at top level',
    text: 'run: echo\nkubernetes:\n  pod_config: {}\n',
    expect: [
      ['error', 2, 1, 'kubernetes', 'unknown field "kubernetes"', '"kubernetes" settings belong under config:'],
    ],
  },
  {
    name: 'num_nodes not a number',
    text: 'num_nodes: two\n',
    expect: [
      ['error', 1, 12, 'num_nodes', 'num_nodes must be a whole number, got "two"', 'for example num_nodes: 1'],
    ],
  },
  {
    name: 'num_nodes zero',
    text: 'num_nodes: 0\n',
    expect: [
      ['error', 1, 12, 'num_nodes', 'num_nodes must be at least 1, got 0', 'use a value of at least 1'],
    ],
  },
  {
    name: 'name is a number',
    text: 'name: 123\n',
    expect: [
      ['error', 1, 7, 'name', 'name must be a string, got 123', 'quote it: name: "123"'],
    ],
  },
  {
    name: 'empty run',
    text: 'name: x\nrun:\n',
    expect: [
      ['error', 2, 1, 'run', 'run must be a string, got an empty value', 'fill in a value for run, or remove it'],
    ],
  },
  {
    name: 'workdir mapping without url',
    text: 'workdir:\n  ref: main\n',
    expect: [
      ['error', 1, 1, 'workdir', 'workdir is missing "url"', 'add url: under workdir'],
    ],
  },
  {
    name: 'workdir wrong type',
    text: 'workdir: 5\n',
    expect: [
      ['error', 1, 10, 'workdir', 'workdir must be a local path or a mapping {url, ref}, got 5', 'for example workdir: .'],
    ],
  },
  {
    name: 'invalid env name',
    text: 'envs:\n  1FOO: x\n',
    expect: [
      ['error', 2, 3, 'envs["1FOO"]', '"1FOO" is not a valid environment variable name', 'use letters, digits and underscores, not starting with a digit'],
    ],
  },
  {
    name: 'env value is a list',
    text: 'envs:\n  PATHS: [a, b]\n',
    expect: [
      ['error', 2, 10, 'envs.PATHS', 'envs.PATHS must be a string, a number, a boolean or empty, got a list', 'write it as one string, e.g. PATHS: "a b"'],
    ],
  },
  {
    name: 'secret list without prefix',
    text: 'secrets:\n  - secrets:HF_TOKEN\n  - WANDB_KEY\n',
    expect: [
      ['error', 3, 5, 'secrets[1]', 'secrets[1] must be a secrets:NAME reference, got "WANDB_KEY"', 'write secrets:WANDB_KEY, or use the mapping form for a value: WANDB_KEY: VALUE'],
    ],
  },
  {
    name: 'secrets wrong type',
    text: 'secrets: 5\n',
    expect: [
      ['error', 1, 10, 'secrets', 'secrets must be a mapping of names to values or a list of secrets:NAME references, got 5', 'for example secrets: { HF_TOKEN: null }'],
    ],
  },
  {
    name: 'bucket mount without source or name',
    text: 'file_mounts:\n  /data:\n    mode: MOUNT\n',
    expect: [
      ['error', 2, 3, 'file_mounts["/data"]', 'file_mounts["/data"] needs "source" or "name"', 'give source: a bucket URL (s3://..., gs://...) for an existing bucket, or name: for a bucket Skydeck creates'],
    ],
  },
  {
    name: 'bucket mount bad mode',
    text: 'file_mounts:\n  /data:\n    name: b\n    mode: STREAM\n',
    expect: [
      ['error', 4, 11, 'file_mounts["/data"].mode', 'file_mounts["/data"].mode must be one of MOUNT, COPY, MOUNT_CACHED, got "STREAM"', 'for example mode: MOUNT'],
    ],
  },
  {
    name: 'file mount value number',
    text: 'file_mounts:\n  /data: 5\n',
    expect: [
      ['error', 2, 10, 'file_mounts["/data"]', 'file_mounts["/data"] must be a source path or URL, or a mapping {source, name, store, mode, persistent}, got 5', 'for example /data: s3://my-bucket/data'],
    ],
  },
  {
    name: 'unterminated quote',
    text: 'name: "train\nrun: echo\n',
    expect: [
      ['error', 3, 1, '', 'Missing closing "quote', 'close the quote or bracket'],
    ],
  },
  {
    name: 'document is a list',
    text: '- run: echo\n',
    expect: [
      ['error', 1, 1, '', 'a task must be a mapping of fields (name:, resources:, run:), got a list', 'start the document with fields such as run: echo hello'],
    ],
  },
  {
    name: 'empty file',
    text: '',
    expect: [
      ['error', 1, 1, '', 'the file has no task in it', 'add at least a run: command, e.g. run: echo hello'],
    ],
  },
  {
    name: 'misspelled config key',
    text: 'config:\n  docker:\n    run_option: --shm-size=1g\n',
    expect: [
      ['error', 3, 5, 'config.docker.run_option', 'unknown field "run_option" in config.docker', 'did you mean "run_options"?'],
    ],
  },
  {
    name: 'two inputs',
    text: 'inputs:\n  s3://a: 1\n  s3://b: 2\n',
    expect: [
      ['error', 1, 1, 'inputs', 'inputs must have at most 1 entry', 'remove the extra entries'],
      ['warning', 1, 1, 'inputs', 'inputs is not used by Skydeck yet and will be ignored', 'it is accepted for SkyPilot compatibility; remove it to silence this warning'],
    ],
  },
  {
    name: 'null env missing at launch',
    text: 'envs:\n  HF_TOKEN:\nrun: echo\n',
    env: {"OTHER":"x"},
    expect: [
      ['error', 2, 3, 'envs.HF_TOKEN', 'environment variable "HF_TOKEN" has no value', 'pass it at launch with --env HF_TOKEN=VALUE, or write HF_TOKEN: "" for an empty value'],
    ],
  },
  {
    name: 'pipeline header execution',
    text: 'name: p\nexecution: sideways\n---\nrun: echo\n',
    expect: [
      ['error', 2, 12, 'execution', 'execution must be "serial" or "parallel", got "sideways"', 'pipelines run serially: execution: serial'],
      ['warning', 3, 1, '', 'this file has 2 YAML documents (a pipeline); launch does not support pipelines yet', 'launch each task from its own file'],
    ],
  },
  {
    name: 'error in second document',
    text: 'name: p\n---\nrun: echo\nresources:\n  cpus: -1\n',
    expect: [
      ['warning', 2, 1, '', 'this file has 2 YAML documents (a pipeline); launch does not support pipelines yet', 'launch each task from its own file'],
      ['error', 5, 9, 'resources.cpus', 'resources.cpus must be greater than 0, got -1', 'use a value greater than 0'],
    ],
  },
  {
    name: 'collection as key',
    text: '? [a, b]\n: 1\n',
    expect: [
      ['error', 1, 3, '', 'a key must be plain text, not a list or mapping', 'write the key as a plain word'],
    ],
  },
];

describe('task YAML: invalid documents', () => {
  it('at least 30 invalid documents are covered in all', () => {
    assert.ok(errorCount(cases) + errorCount(resourceCases) >= 30);
  });

  checkCases(cases);

  it('underlines the whole offending value', () => {
    const [d] = parseTaskText('resources:\n  accelerators: A100:x\n').diagnostics;
    assert.deepEqual([d.line, d.col, d.endLine, d.endCol], [2, 17, 2, 23]);
    const [k] = parseTaskText('resources:\n  acelerators: A100\n').diagnostics;
    assert.deepEqual([k.line, k.col, k.endLine, k.endCol], [2, 3, 2, 14]);
  });

  it('reports every error of a document, in source order', () => {
    const text = 'num_nodes: x\nresources:\n  cpus: many\n  disk_tier: fast\nrun: 5\n';
    const result = parseTaskText(text, 't.yaml');
    assert.deepEqual(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.path}`), [
      '1:12 num_nodes', '3:9 resources.cpus', '4:14 resources.disk_tier', '5:6 run',
    ]);
  });

  it('does not stack a semantic error on top of a schema error for the same field', () => {
    const result = parseTaskText('resources:\n  cpus: [4]\n');
    assert.equal(result.diagnostics.length, 1);
    assert.equal(result.diagnostics[0].message, 'resources.cpus must be a number or "<number>+" for at least that many vCPUs, got a list');
  });
});
