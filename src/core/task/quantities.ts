// cpus, memory, disk sizes and durations: SkyPilot's `4+`, `32GB+`, `1TB`, `10m` forms.

import { SIZE_UNITS_GB, TIME_UNITS_MINUTES } from './names';
import { Quantity } from './types';

/** A parse result; on failure `problem` completes "<field> ..." and `hint` says how to fix it. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string; hint: string };

const fail = <T>(problem: string, hint: string): Parsed<T> => ({ ok: false, problem, hint });

const NUMBER = /^(\d+(\.\d*)?|\.\d+)$/;

/** `4`, `0.5`, `"4+"` -> {min, orMore}. */
export function parseCpus(value: unknown): Parsed<Quantity> {
  const text = String(value).trim();
  const orMore = text.endsWith('+');
  const body = orMore ? text.slice(0, -1).trim() : text;
  if (typeof value !== 'number' && !NUMBER.test(body)) {
    return fail(`must be a number or "<number>+", got ${JSON.stringify(String(value))}`, 'e.g. cpus: 4 or cpus: 4+');
  }
  const min = Number(body);
  if (!(min > 0)) return fail(`must be greater than 0, got ${text}`, 'e.g. cpus: 4 or cpus: 4+');
  return { ok: true, value: { min, orMore } };
}

/** A size in GB: a plain number is GB; units KB/MB/GB/TB/PB (and Ki/Mi/Gi/...) are powers of 1024. */
export function sizeInGb(text: string): number | undefined {
  const m = /^(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)$/.exec(text.trim());
  if (!m) return undefined;
  const unit = m[2].toLowerCase();
  if (unit === '') return Number(m[1]);
  const factor = SIZE_UNITS_GB[unit];
  return factor === undefined ? undefined : Number(m[1]) * factor;
}

/** `32`, `"32+"`, `"64GB"`, `"512MB+"` -> {min (GB), orMore}. */
export function parseMemory(value: unknown): Parsed<Quantity> {
  const text = String(value).trim();
  const orMore = text.endsWith('+');
  const body = orMore ? text.slice(0, -1) : text;
  const gb = typeof value === 'number' ? value : sizeInGb(body);
  if (gb === undefined || Number.isNaN(gb)) {
    return fail(
      `must be a number of GB or a size such as 64GB, optionally followed by + for "at least", got ${JSON.stringify(String(value))}`,
      'e.g. memory: 32+ or memory: 64GB',
    );
  }
  if (!(gb > 0)) return fail(`must be greater than 0, got ${text}`, 'e.g. memory: 32+');
  return { ok: true, value: { min: gb, orMore } };
}

/** disk_size: whole GB, as a number or with a unit (`"1TB"`). */
export function parseDiskSize(value: unknown): Parsed<number> {
  const gb = typeof value === 'number' ? value : sizeInGb(String(value));
  if (gb === undefined) {
    return fail(`must be a number of GB or a size such as 100GB, got ${JSON.stringify(String(value))}`, 'e.g. disk_size: 256');
  }
  if (!Number.isInteger(gb)) return fail(`must be a whole number of GB, got ${JSON.stringify(String(value))}`, 'round it to whole GB');
  if (gb <= 0) return fail(`must be greater than 0, got ${String(value)}`, 'e.g. disk_size: 256');
  return { ok: true, value: gb };
}

/** Autostop idle time: minutes (`10`) or a duration (`"10m"`, `"2h"`, `"1d"`, `"1w"`). */
export function parseMinutes(value: unknown): Parsed<number> {
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 0 ? { ok: true, value } : fail(`must be whole minutes, got ${value}`, 'e.g. 10 or "10m"');
  }
  const m = /^(\d+)\s*([a-zA-Z]?)$/.exec(String(value).trim());
  const factor = m ? (m[2] === '' ? 1 : TIME_UNITS_MINUTES[m[2].toLowerCase()]) : undefined;
  if (!m || factor === undefined) {
    return fail(`must be minutes or a duration such as 10m, 2h, 1d, got ${JSON.stringify(String(value))}`, 'e.g. autostop: 30m');
  }
  return { ok: true, value: Number(m[1]) * factor };
}
