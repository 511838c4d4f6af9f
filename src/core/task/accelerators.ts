// Accelerator requests: `A100`, `A100:8`, `L4:0.25`, `{A100: 8}`, `{V100, A100}`, `[V100, A100]`,
// and memory-based ones (`80GB+`, `24GB:2`, `nvidia:24GB`, `nvidia:24GB+:2`).

import { ACCELERATOR_NAME } from './agentLimits';
import { Parsed } from './quantities';
import { AcceleratorOption } from './types';

const MEMORY = /^(\d+)([GgMmTt][Bb])(\+?)$/;
const COUNT = /^(\d+(\.\d*)?|\.\d+)$/;
const UNIT_GB: Record<string, number> = { mb: 1 / 1024, gb: 1, tb: 1024 };
const HINT = 'e.g. A100, A100:8 or L4:0.25';

function memoryOf(text: string, manufacturer?: string): AcceleratorOption['memory'] {
  const m = MEMORY.exec(text);
  if (!m) return undefined;
  const gb = Number(m[1]) * UNIT_GB[m[2].toLowerCase()];
  return manufacturer ? { gb, orMore: m[3] === '+', manufacturer } : { gb, orMore: m[3] === '+' };
}

function parseCount(text: string, whole: boolean): number | undefined {
  if (!COUNT.test(text.trim())) return undefined;
  const n = Number(text);
  if (!(n > 0)) return undefined;
  if (whole && !Number.isInteger(n)) return undefined;
  return n;
}

/** Parses one accelerator string. */
export function parseAccelerator(spec: string): Parsed<AcceleratorOption> {
  const bad = (why: string): Parsed<AcceleratorOption> => ({ ok: false, problem: `${why}, got ${JSON.stringify(spec)}`, hint: HINT });
  const parts = spec.trim().split(':').map((p) => p.trim());
  if (parts.some((p) => p === '')) return bad('must be NAME or NAME:COUNT');
  if (parts.length === 1) {
    const memory = memoryOf(parts[0]);
    return { ok: true, value: memory ? { name: parts[0], count: 1, memory } : { name: parts[0], count: 1 } };
  }
  if (parts.length === 2) {
    const [a, b] = parts;
    if (MEMORY.test(a)) {
      const count = parseCount(b, true);
      return count === undefined ? bad('must have a whole-number count after the memory size') : { ok: true, value: { name: a, count, memory: memoryOf(a) } };
    }
    if (MEMORY.test(b)) return { ok: true, value: { name: `${a}:${b}`, count: 1, memory: memoryOf(b, a) } };
    const count = parseCount(b, false);
    if (count === undefined) return bad('must be NAME:COUNT with a positive count');
    return { ok: true, value: { name: a, count } };
  }
  if (parts.length === 3) {
    const [maker, mem, n] = parts;
    if (!MEMORY.test(mem)) return bad('with three parts must be MANUFACTURER:MEMORY:COUNT, e.g. nvidia:24GB:2');
    const count = parseCount(n, true);
    if (count === undefined) return bad('must have a whole-number count after the memory size');
    return { ok: true, value: { name: `${maker}:${mem}`, count, memory: memoryOf(mem, maker) } };
  }
  return bad('must be NAME or NAME:COUNT');
}

export interface AcceleratorProblem {
  /** Key (mapping form) or index (list form) of the bad entry; undefined for the string form. */
  at?: string | number;
  problem: string;
  hint: string;
}

export interface ParsedAccelerators {
  options: AcceleratorOption[];
  /** True for the list form, whose order is a preference. */
  ordered: boolean;
  problems: AcceleratorProblem[];
}

/** Normalizes any accepted `accelerators` value (already schema-checked) to a list of options. */
export function parseAccelerators(value: unknown): ParsedAccelerators {
  const out: ParsedAccelerators = { options: [], ordered: false, problems: [] };
  const add = (spec: string, at?: string | number) => {
    const r = parseAccelerator(spec);
    if (!r.ok) out.problems.push({ at, problem: r.problem, hint: r.hint });
    else if (!r.value.memory && !ACCELERATOR_NAME.test(r.value.name)) {
      // The agent schedules on this name and refuses any other form (agentLimits.ts).
      out.problems.push({
        at,
        problem: `names accelerator ${JSON.stringify(r.value.name)}, which the agent on the node cannot schedule`,
        hint: 'an accelerator name is 1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit',
      });
    }
    else if (!out.options.some((o) => o.name === r.value.name && o.count === r.value.count)) out.options.push(r.value);
  };
  if (typeof value === 'string') {
    add(value);
  } else if (Array.isArray(value)) {
    out.ordered = true;
    value.forEach((v, i) => add(String(v), i));
  } else if (value && typeof value === 'object') {
    for (const [name, count] of Object.entries(value as Record<string, unknown>)) {
      add(count === null || count === undefined ? name : `${name}:${String(count)}`, name);
    }
  }
  return out;
}

/** `A100:8`-style text for an option (used in messages and by the launcher). */
export function formatAccelerator(o: AcceleratorOption): string {
  return o.count === 1 ? o.name : `${o.name}:${o.count}`;
}
