// Bucket mount tuning: SkyPilot's `type:` presets and `config: {mount_cached | mount}` become one
// MountTuning (explicit keys over the preset), which becomes rclone 1.60 flags; every unknown
// key, wrong mode and bad value is refused with its position and the fix.

import assert from 'node:assert/strict';
import type { FileMount } from '../../../src/core/task';
import { mountArgv, tuningFlags } from '../../../src/core/storage/rcloneArgs';
import { PRESETS } from '../../../src/core/task/mountTuning';
import { checkCases, type InvalidCase } from './invalidHarness';
import { parse, task } from './helpers';

const tuningOf = (entry: string): unknown => {
  const m = task(`resources: {cloud: aws}\nfile_mounts:\n  /d: ${entry}\n`).fileMounts['/d'] as Extract<FileMount, { kind: 'bucket' }>;
  return m.mount.tuning;
};

describe('task YAML: bucket mount tuning (type presets, config)', () => {
  it('each SkyPilot preset maps to its values (chunk streams have no rclone 1.60 flag)', () => {
    assert.deepEqual(tuningOf('{source: s3://bkt, mode: MOUNT_CACHED, type: MODEL_CHECKPOINT_RO}'), { vfs_read_chunk_size: '32M', read_only: true });
    assert.deepEqual(tuningOf('{source: s3://bkt, mode: MOUNT_CACHED, type: model_checkpoint_rw}'), { vfs_read_chunk_size: '32M', transfers: 8 });
    assert.deepEqual(tuningOf('{source: s3://bkt, mode: MOUNT_CACHED, type: DATASET_RO}'), { vfs_read_chunk_size: '8M', read_only: true });
    assert.deepEqual(tuningOf('{name: ds-1, mode: MOUNT_CACHED, type: DATASET_RW}'), { vfs_read_chunk_size: '8M', transfers: 16 });
    assert.deepEqual(Object.keys(PRESETS).sort(), ['DATASET_RO', 'DATASET_RW', 'MODEL_CHECKPOINT_RO', 'MODEL_CHECKPOINT_RW']);
  });

  it('config.mount_cached overrides the preset key by key; config.mount sets read_only on MOUNT', () => {
    assert.deepEqual(tuningOf('{source: s3://bkt, mode: MOUNT_CACHED, type: MODEL_CHECKPOINT_RW, config: {mount_cached: {transfers: 16, vfs_cache_max_size: 100g}}}'),
      { vfs_read_chunk_size: '32M', transfers: 16, vfs_cache_max_size: '100g' });
    assert.deepEqual(tuningOf('{source: s3://bkt, mode: MOUNT_CACHED, config: {mount_cached: {buffer_size: 64M, vfs_cache_max_age: 1h30m, vfs_read_ahead: 128Mi, vfs_write_back: 5s, read_only: false, vfs_read_chunk_streams: 0}}}'),
      { buffer_size: '64M', vfs_cache_max_age: '1h30m', vfs_read_ahead: '128Mi', vfs_write_back: '5s', read_only: false });
    assert.deepEqual(tuningOf('{source: s3://bkt, config: {mount: {read_only: true}}}'), { read_only: true });
    assert.equal(tuningOf('{source: s3://bkt, mode: MOUNT}'), undefined);
  });

  it('flags: MOUNT_CACHED gets every setting (checkers follow transfers); MOUNT only --read-only', () => {
    assert.deepEqual(tuningFlags({ transfers: 8, vfs_read_chunk_size: '32M', read_only: true }, true),
      ['--transfers', '8', '--checkers', '16', '--vfs-read-chunk-size', '32M', '--read-only']);
    assert.deepEqual(tuningFlags({ transfers: 100 }, true), ['--transfers', '100', '--checkers', '150']);
    assert.deepEqual(tuningFlags({ transfers: 1 }, true), ['--transfers', '1', '--checkers', '4']);
    assert.deepEqual(tuningFlags({ buffer_size: '64M', vfs_cache_max_size: '10G', vfs_cache_max_age: '1h', vfs_read_ahead: '128M' }, true),
      ['--buffer-size', '64M', '--vfs-cache-max-size', '10G', '--vfs-cache-max-age', '1h', '--vfs-read-ahead', '128M']);
    assert.deepEqual(tuningFlags({ read_only: true, transfers: 4 }, false), ['--read-only']);
    const cached = mountArgv('skydeck:b', '/d', { cached: true, cacheDir: '/c', logFile: '/l', tuning: { vfs_write_back: '5s' } });
    assert.deepEqual(cached.slice(cached.indexOf('--vfs-write-back'), cached.indexOf('--vfs-write-back') + 2), ['--vfs-write-back', '5s']);
    assert.equal(cached.filter((w) => w === '--vfs-write-back').length, 1);
  });

  it('a chunk-stream count above 0 and hf_mount_args are kept as warnings (ignored), the task still parses', () => {
    const r = parse('file_mounts:\n  /d: {source: s3://bkt, mode: MOUNT_CACHED, config: {mount_cached: {vfs_read_chunk_streams: 16}}}\n  /e: {source: s3://bkt, config: {mount: {hf_mount_args: [--x]}}}\n');
    assert.equal(r.ok, true);
    assert.deepEqual(r.diagnostics.map((d) => [d.severity, d.line, d.path, d.message]), [
      ['warning', 2, 'file_mounts["/d"].config.mount_cached.vfs_read_chunk_streams', 'file_mounts["/d"].config.mount_cached.vfs_read_chunk_streams is ignored: rclone 1.60 on the node has no parallel chunk streams'],
      ['warning', 3, 'file_mounts["/e"].config.mount.hf_mount_args', 'file_mounts["/e"].config.mount.hf_mount_args is ignored: it applies to Hugging Face stores only'],
    ]);
  });
});

describe('task YAML: bucket mount tuning refusals', () => {
  const cases: InvalidCase[] = [
    {
      name: 'unknown setting under mount_cached, with the near name',
      text: 'file_mounts:\n  /d:\n    source: s3://bkt\n    mode: MOUNT_CACHED\n    config:\n      mount_cached:\n        transfer: 4\n',
      expect: [['error', 7, 9, 'file_mounts["/d"].config.mount_cached.transfer', 'file_mounts["/d"].config.mount_cached.transfer: unknown setting "transfer"', 'did you mean transfers?']],
    },
    {
      name: 'unknown setting with nothing near lists the settings',
      text: 'file_mounts:\n  /d:\n    source: s3://bkt\n    config:\n      mount:\n        cache_everything: true\n',
      expect: [['error', 6, 9, 'file_mounts["/d"].config.mount.cache_everything', 'file_mounts["/d"].config.mount.cache_everything: unknown setting "cache_everything"', 'mount takes read_only, hf_mount_args']],
    },
    {
      name: 'unknown config section',
      text: 'file_mounts:\n  /d:\n    source: s3://bkt\n    config:\n      mount_cache: {transfers: 4}\n',
      expect: [['error', 5, 7, 'file_mounts["/d"].config.mount_cache', 'file_mounts["/d"].config.mount_cache: unknown section "mount_cache"', 'did you mean mount_cached?']],
    },
    {
      name: 'mount_cached settings on a MOUNT mount',
      text: 'file_mounts:\n  /d:\n    source: s3://bkt\n    config:\n      mount_cached: {transfers: 4}\n',
      expect: [['error', 5, 7, 'file_mounts["/d"].config.mount_cached', 'file_mounts["/d"].config.mount_cached tunes a MOUNT_CACHED mount, but this mount is MOUNT', 'add mode: MOUNT_CACHED, or put the settings under config.mount']],
    },
    {
      name: 'a preset on a COPY mount',
      text: 'file_mounts:\n  /d:\n    source: s3://bkt\n    mode: COPY\n    type: DATASET_RO\n',
      expect: [['error', 5, 11, 'file_mounts["/d"].type', 'file_mounts["/d"].type (DATASET_RO) tunes a MOUNT_CACHED mount, but this mount is COPY', 'add mode: MOUNT_CACHED, or remove type:']],
    },
    {
      name: 'bad values: size, duration, count, boolean',
      text: 'file_mounts:\n  /d:\n    source: s3://bkt\n    mode: MOUNT_CACHED\n    config:\n      mount_cached:\n        vfs_cache_max_size: 10GB\n        vfs_write_back: 1d\n        transfers: 0\n        read_only: "yes"\n',
      expect: [
        ['error', 7, 29, 'file_mounts["/d"].config.mount_cached.vfs_cache_max_size', 'file_mounts["/d"].config.mount_cached.vfs_cache_max_size must be a size such as 64M or 10G, got "10GB"', 'e.g. vfs_cache_max_size: 64M'],
        ['error', 8, 25, 'file_mounts["/d"].config.mount_cached.vfs_write_back', 'file_mounts["/d"].config.mount_cached.vfs_write_back must be a duration such as 5s or 1h, got "1d"', 'e.g. vfs_write_back: 5s'],
        ['error', 9, 20, 'file_mounts["/d"].config.mount_cached.transfers', 'file_mounts["/d"].config.mount_cached.transfers must be a whole number from 1 to 1024, got 0', 'e.g. transfers: 8'],
        ['error', 10, 20, 'file_mounts["/d"].config.mount_cached.read_only', 'file_mounts["/d"].config.mount_cached.read_only must be true or false, got "yes"', 'e.g. read_only: true'],
      ],
    },
  ];
  checkCases(cases);
});
