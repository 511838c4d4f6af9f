// A small evaluator of IAM identity policies, for tests of the documents Skydeck writes (moto
// does not evaluate IAM). It follows the IAM User Guide's evaluation logic for one principal's
// identity-based policies: an explicit Deny wins; else an Allow whose action, resource and every
// condition match allows; else the request is implicitly denied. It knows only the parts
// Skydeck's policies use; anything else (NotAction, NotResource, Principal, policy variables,
// set operators, ...IfExists, an operator it does not know) throws instead of guessing.

export type Decision = 'allow' | 'explicit-deny' | 'implicit-deny';

export interface IamRequest {
  action: string;
  resource: string;
  /** Condition keys present in the request (case-insensitive names); absent keys are absent. */
  context?: Record<string, string>;
}

interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

const list = <T>(v: T | T[]): T[] => ([] as T[]).concat(v);

/** IAM's wildcards: `*` any run of characters, `?` one character; nothing else is special. */
function glob(pattern: string, value: string, ignoreCase: boolean): boolean {
  if (pattern.includes('${')) throw new Error(`iamEval: policy variables are not supported (${pattern})`);
  const re = new RegExp(`^${pattern.replace(/[.+^$()|[\]{}\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, ignoreCase ? 'is' : 's');
  return re.test(value);
}

/** An ARN pattern against an ARN: each of the six colon-separated parts matched on its own (ArnLike). */
function arnLike(pattern: string, value: string): boolean {
  const p = pattern.split(':');
  const v = value.split(':');
  if (p.length < 6 || v.length < 6) return false;
  const head = (a: string[]) => [...a.slice(0, 5), a.slice(5).join(':')];
  const [ph, vh] = [head(p), head(v)];
  return ph.every((part, i) => glob(part, vh[i], false));
}

type Matcher = (pattern: string, value: string) => boolean;
const POSITIVE: Record<string, Matcher> = {
  StringEquals: (p, v) => p === v,
  StringLike: (p, v) => glob(p, v, false),
  ArnEquals: (p, v) => p === v,
  ArnLike: arnLike,
};
const NEGATED: Record<string, string> = { StringNotEquals: 'StringEquals', StringNotLike: 'StringLike', ArnNotEquals: 'ArnEquals', ArnNotLike: 'ArnLike' };

function conditionHolds(op: string, key: string, wanted: string[], context: Record<string, string>): boolean {
  const value = context[key.toLowerCase()];
  if (op === 'Null') {
    if (wanted.length !== 1 || !['true', 'false'].includes(wanted[0])) throw new Error(`iamEval: Null takes "true" or "false" (${key})`);
    return (value === undefined) === (wanted[0] === 'true');
  }
  if (POSITIVE[op]) return value !== undefined && wanted.some((w) => POSITIVE[op](w, value));
  // A negated operator matches when the key is absent, and otherwise when no value matches.
  if (NEGATED[op]) return value === undefined || !wanted.some((w) => POSITIVE[NEGATED[op]](w, value));
  throw new Error(`iamEval: condition operator ${op} is not supported`);
}

function matches(st: Statement, req: IamRequest): boolean {
  const known = new Set(['Sid', 'Effect', 'Action', 'Resource', 'Condition']);
  for (const k of Object.keys(st)) if (!known.has(k)) throw new Error(`iamEval: statement element ${k} is not supported (${st.Sid ?? '?'})`);
  if (st.Effect !== 'Allow' && st.Effect !== 'Deny') throw new Error(`iamEval: Effect ${String(st.Effect)}`);
  if (st.Action === undefined || st.Resource === undefined) throw new Error(`iamEval: ${st.Sid ?? '?'} needs Action and Resource`);
  // Checked before anything can end the match early: an unknown operator is never silently skipped.
  for (const op of Object.keys(st.Condition ?? {})) {
    if (op !== 'Null' && !POSITIVE[op] && !NEGATED[op]) throw new Error(`iamEval: condition operator ${op} is not supported (${st.Sid ?? '?'})`);
  }
  if (!list(st.Action).some((a) => glob(a, req.action, true))) return false;
  if (!list(st.Resource).some((r) => glob(r, req.resource, false))) return false;
  const context = Object.fromEntries(Object.entries(req.context ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  return Object.entries(st.Condition ?? {}).every(([op, keys]) => Object.entries(keys).every(([key, w]) => conditionHolds(op, key, list(w), context)));
}

/** The decision for `req` under these policy documents (JSON text or parsed) of one principal. */
export function evaluate(docs: (string | { Statement: unknown })[], req: IamRequest): Decision {
  const statements = docs.flatMap((d) => list((typeof d === 'string' ? JSON.parse(d) as { Statement: unknown } : d).Statement) as Statement[]);
  const hit = statements.filter((s) => matches(s, req));
  if (hit.some((s) => s.Effect === 'Deny')) return 'explicit-deny';
  return hit.some((s) => s.Effect === 'Allow') ? 'allow' : 'implicit-deny';
}
