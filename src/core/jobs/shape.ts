import { printable } from '../state/clusterName';

// Small hand-written checks for what the agent answers, in the style of state/rowCheck.ts: a
// check returns why a value does not have the shape ("rows[3].status: expected …, got 7"), or
// undefined. The type parameter records what a passing value is, so the table of checks in
// protocolChecks.ts is compared with the AgentCommands map by the compiler.
//
// Objects may carry keys a check does not name: a newer agent may add fields, and an older
// client ignores them (forward compatibility). Missing or mistyped fields are refused.

export interface Check<T> {
  (v: unknown, at: string): string | undefined;
  /** Never set: carries T for the compiler. */
  readonly __type?: T;
}

type Of<C> = C extends Check<infer T> ? T : never;
type Obj = Record<string, unknown>;

/** A check written by hand; `T` is what a passing value is. */
export const check = <T>(f: (v: unknown, at: string) => string | undefined): Check<T> => f as Check<T>;

/** What a value is, for "got …" (quoted and cut short: the text comes from the node). */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  return printable(v, 40);
}

const expected = (at: string, what: string, v: unknown) => `${at || 'result'}: expected ${what}, got ${describe(v)}`;
const PLAIN_KEY = /^[A-Za-z0-9_-]+$/;
/** `at.key`, `at[3]`, or `at["a b"]` for a key from the node that is not a plain word. */
export function field(at: string, key: string | number): string {
  if (typeof key === 'number') return `${at}[${key}]`;
  if (!PLAIN_KEY.test(key)) return `${at}[${printable(key, 40)}]`;
  return at ? `${at}.${key}` : key;
}

export const str = check<string>((v, at) => (typeof v === 'string' ? undefined : expected(at, 'a string', v)));
export const bool = check<boolean>((v, at) => (typeof v === 'boolean' ? undefined : expected(at, 'true or false', v)));
export const num = check<number>((v, at) => (typeof v === 'number' && Number.isFinite(v) ? undefined : expected(at, 'a number', v)));
export const int = check<number>((v, at) => (Number.isSafeInteger(v) ? undefined : expected(at, 'an integer', v)));
/** Ids, pids, offsets and counters: whole numbers from `min` up. */
export const intFrom = (min: number) =>
  check<number>((v, at) => (Number.isSafeInteger(v) && (v as number) >= min ? undefined : expected(at, `an integer >= ${min}`, v)));

export function oneOf<T extends string>(values: readonly T[]): Check<T> {
  const set = new Set<unknown>(values);
  return check<T>((v, at) => (set.has(v) ? undefined : expected(at, `one of ${values.join('|')}`, v)));
}

export function nullable<T>(c: Check<T>): Check<T | null> {
  return check<T | null>((v, at) => (v === null ? undefined : c(v, at)));
}

/** A key that may be absent (a newer field an older agent does not send, or a sometimes-field). */
export function optional<T>(c: Check<T>): Check<T | undefined> {
  return check<T | undefined>((v, at) => (v === undefined ? undefined : c(v, at)));
}

export function listOf<T>(c: Check<T>): Check<T[]> {
  return check<T[]>((v, at) => {
    if (!Array.isArray(v)) return expected(at, 'a list', v);
    // The path is built only for a value that fails (a 10,000-row queue has 150,000 values).
    for (let i = 0; i < v.length; i++) if (c(v[i], '') !== undefined) return c(v[i], field(at, i));
    return undefined;
  });
}

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An object whose every value passes `c` (e.g. accelerator counts by name). */
export function recordOf<T>(c: Check<T>): Check<Record<string, T>> {
  return check<Record<string, T>>((v, at) => {
    if (!isObj(v)) return expected(at, 'an object', v);
    for (const k of Object.keys(v)) if (c(v[k], '') !== undefined) return c(v[k], field(at, k));
    return undefined;
  });
}

/** An object with at least these keys (others are allowed and ignored). */
export function obj<S extends Record<string, Check<unknown>>>(shape: S): Check<{ [K in keyof S]: Of<S[K]> }> {
  const keys = Object.keys(shape);
  return check((v, at) => {
    if (!isObj(v)) return expected(at, 'an object', v);
    for (const k of keys) {
      const p = shape[k](v[k], field(at, k));
      if (p) return p;
    }
    return undefined;
  });
}

/** The first check that fits the value decides (e.g. an isolation of one kind or the other). */
export function either<A, B>(a: Check<A>, b: Check<B>): Check<A | B> {
  return check<A | B>((v, at) => {
    const pa = a(v, at);
    return pa === undefined || b(v, at) === undefined ? undefined : pa;
  });
}
