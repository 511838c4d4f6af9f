// A bucket mount's `type:` preset and `config:` tuning, checked here (unknown keys, wrong mode,
// bad values: each an error at its own position with the fix) and merged into one MountTuning
// that storage/rcloneArgs.ts turns into rclone flags. Keys and presets are SkyPilot's
// (sky/data/storage.py: FileMountType, _MOUNT_CACHED_PRESET_CONFIGS, MountCachedConfig,
// MountConfig), read for the facts: explicit config keys override the preset's.

import type { MountMode, MountTuning } from '../storage/types';
import { Reporter, describeValue, formatPath } from './diagnostics';
import { Dict, isDict } from './objects';
import { Path } from './positions';
import { nearest } from './suggest';

/**
 * SkyPilot's presets. Its `vfs_read_chunk_streams` (16 for checkpoints, 0 for datasets) has no
 * flag in rclone 1.60 (`--vfs-read-chunk-streams` came later), so only the chunk size, read-only
 * and transfers carry over.
 */
export const PRESETS: Record<string, MountTuning> = {
  MODEL_CHECKPOINT_RO: { vfs_read_chunk_size: '32M', read_only: true },
  MODEL_CHECKPOINT_RW: { vfs_read_chunk_size: '32M', transfers: 8 },
  DATASET_RO: { vfs_read_chunk_size: '8M', read_only: true },
  DATASET_RW: { vfs_read_chunk_size: '8M', transfers: 16 },
};

type Check = 'count' | 'size' | 'duration' | 'bool' | 'streams' | 'hfArgs';
const CACHED_KEYS: Record<string, Check> = {
  transfers: 'count', buffer_size: 'size', vfs_cache_max_size: 'size', vfs_cache_max_age: 'duration',
  vfs_read_ahead: 'size', vfs_read_chunk_size: 'size', vfs_read_chunk_streams: 'streams', vfs_write_back: 'duration', read_only: 'bool',
};
const MOUNT_KEYS: Record<string, Check> = { read_only: 'bool', hf_mount_args: 'hfArgs' };
const SECTIONS: Record<string, { mode: MountMode; keys: Record<string, Check> }> = {
  mount_cached: { mode: 'MOUNT_CACHED', keys: CACHED_KEYS },
  mount: { mode: 'MOUNT', keys: MOUNT_KEYS },
};

// What rclone 1.60 mount takes (tried against it): a SizeSuffix is a number with an optional
// b/k/m/g/t/p suffix, then "i" or "iB" ("128MB" is refused), or "off"; the VFS durations are
// Go's time.Duration (units ns..h, no "d" and no "off").
const SIZE = /^(off|\d+(\.\d+)?([bkmgtp](ib?)?)?)$/i;
const DURATION = /^(0|(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+)$/;

/**
 * The tuning of one mapping-form mount, or `undefined` when it has none. `null` means an error
 * was reported (the entry is then dropped, as for any other invalid entry).
 */
export function mountTuning(r: Reporter, path: Path, src: Dict, mode: MountMode): MountTuning | undefined | null {
  let ok = true;
  let tuning: MountTuning | undefined;
  if (typeof src.type === 'string') {
    const preset = src.type.toUpperCase();
    if (mode !== 'MOUNT_CACHED') {
      r.error([...path, 'type'], `${formatPath([...path, 'type'])} (${preset}) tunes a MOUNT_CACHED mount, but this mount is ${mode}`,
        'add mode: MOUNT_CACHED, or remove type:');
      ok = false;
    } else if (PRESETS[preset]) tuning = { ...PRESETS[preset] };
  }
  if (src.config !== undefined && isDict(src.config)) {
    for (const [section, body] of Object.entries(src.config)) {
      const at: Path = [...path, 'config', section];
      const spec = SECTIONS[section];
      if (!spec) {
        const near = nearest(section, Object.keys(SECTIONS));
        r.error(at, `${formatPath(at)}: unknown section "${section}"`, near ? `did you mean ${near}?` : 'config: takes mount_cached (for MOUNT_CACHED) or mount (for MOUNT)', 'key');
        ok = false;
        continue;
      }
      if (spec.mode !== mode) {
        r.error(at, `${formatPath(at)} tunes a ${spec.mode} mount, but this mount is ${mode}`,
          `add mode: ${spec.mode}, or put the settings under config.${spec.mode === 'MOUNT' ? 'mount_cached' : 'mount'}`, 'key');
        ok = false;
        continue;
      }
      if (!isDict(body)) {
        r.error(at, `${formatPath(at)} must be a mapping, got ${describeValue(body)}`, `e.g. ${section}: {read_only: true}`);
        ok = false;
        continue;
      }
      const set: MountTuning = { ...tuning };
      for (const [key, value] of Object.entries(body)) {
        const kat: Path = [...at, key];
        const check = spec.keys[key];
        if (!check) {
          const near = nearest(key, Object.keys(spec.keys));
          r.error(kat, `${formatPath(kat)}: unknown setting "${key}"`, near ? `did you mean ${near}?` : `${section} takes ${Object.keys(spec.keys).join(', ')}`, 'key');
          ok = false;
          continue;
        }
        const v = checked(r, kat, check, value);
        if (v === null) ok = false;
        else if (v !== undefined) Object.assign(set, { [key]: v });
      }
      tuning = Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined)) as MountTuning;
    }
  }
  if (!ok) return null;
  return tuning && Object.keys(tuning).length ? tuning : undefined;
}

/** One value: its MountTuning form, `undefined` for a setting with nothing to pass on, `null` after an error. */
function checked(r: Reporter, at: Path, check: Check, value: unknown): string | number | boolean | undefined | null {
  const bad = (what: string, example: string) => {
    r.error(at, `${formatPath(at)} must be ${what}, got ${describeValue(value)}`, `e.g. ${String(at[at.length - 1])}: ${example}`);
    return null;
  };
  switch (check) {
    case 'count':
      return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 1024 ? value as number : bad('a whole number from 1 to 1024', '8');
    case 'size': {
      const s = typeof value === 'number' && Number.isInteger(value) && value >= 0 ? String(value) : value;
      return typeof s === 'string' && SIZE.test(s) ? s : bad('a size such as 64M or 10G', '64M');
    }
    case 'duration':
      return typeof value === 'string' && DURATION.test(value) ? value : bad('a duration such as 5s or 1h', '5s');
    case 'bool':
      return typeof value === 'boolean' ? value : bad('true or false', 'true');
    case 'streams':
      if (!Number.isInteger(value) || (value as number) < 0) return bad('a whole number, 0 or more', '0');
      if ((value as number) > 0) {
        r.warn(at, `${formatPath(at)} is ignored: rclone 1.60 on the node has no parallel chunk streams`, 'remove it, or raise vfs_read_chunk_size instead');
      }
      return undefined;
    case 'hfArgs':
      r.warn(at, `${formatPath(at)} is ignored: it applies to Hugging Face stores only`, 'remove it');
      return undefined;
  }
}
