// Role-assignment ABAC conditions (conditionVersion 2.0) as Azure evaluates them for role
// assignment delegation (learn.microsoft.com: "Delegate Azure role assignment management to
// others with conditions", and the condition format reference): "!(ActionMatches{'a'})",
// "ActionMatches{'a'}", "(…)", AND, OR, and "@Request[attr] op {values}" /
// "@Resource[attr] op {values}" with the attributes RoleDefinitionId and PrincipalType of
// Microsoft.Authorization/roleAssignments and the operators ForAnyOfAnyValues:GuidEquals and
// ForAnyOfAnyValues:StringEqualsIgnoreCase. Only that subset is modelled: any other attribute,
// operator or token is a parse error (the fake answers 500), never silently true, so a
// condition Skydeck emits in a new form fails a test until the fake knows what it means.

export interface ConditionContext {
  /** The request's action (as actions.ts names it). */
  action: string;
  /** Attribute → value of the request (a role assignment's PUT body) and of the resource it acts on (DELETE). */
  request: Record<string, string | undefined>;
  resource: Record<string, string | undefined>;
}

type Node =
  | { k: 'and' | 'or'; a: Node; b: Node }
  | { k: 'not'; a: Node }
  | { k: 'action'; name: string }
  | { k: 'attr'; source: 'request' | 'resource'; attr: string; op: string; values: string[] };

const RA = 'Microsoft.Authorization/roleAssignments';
export const CONDITION_ATTRS = { RoleDefinitionId: `${RA}:RoleDefinitionId`, PrincipalType: `${RA}:PrincipalType` } as const;
const ATTRS = new Set<string>(Object.values(CONDITION_ATTRS));
const OPS = new Set(['ForAnyOfAnyValues:GuidEquals', 'ForAnyOfAnyValues:StringEqualsIgnoreCase']);

class ConditionError extends Error {}

export function parseCondition(text: string): Node {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const fail = (what: string): never => {
    throw new ConditionError(`fake ARM: condition not modelled (${what} at ${i}): ${text}`);
  };
  const eat = (s: string) => {
    ws();
    if (!text.startsWith(s, i)) fail(`expected "${s}"`);
    i += s.length;
  };
  const peek = (s: string) => (ws(), text.startsWith(s, i));
  const values = (): string[] => {
    eat('{');
    const out: string[] = [];
    for (;;) {
      ws();
      const m = /^(?:'([^']*)'|([0-9a-fA-F-]{36}))/.exec(text.slice(i)) ?? fail('a value');
      out.push(m[1] ?? m[2]);
      i += m[0].length;
      if (peek(',')) {
        eat(',');
        continue;
      }
      eat('}');
      return out;
    }
  };
  const unary = (): Node => {
    if (peek('!')) {
      eat('!');
      return { k: 'not', a: unary() };
    }
    if (peek('(')) {
      eat('(');
      const e = or();
      eat(')');
      return e;
    }
    if (peek('ActionMatches{')) {
      eat('ActionMatches{');
      const m = /^'([^']+)'/.exec(text.slice(i)) ?? fail('an action');
      i += m[0].length;
      eat('}');
      return { k: 'action', name: m[1] };
    }
    const m = /^@(Request|Resource)\[([^\]]+)\]\s+(\S+)\s*/.exec(text.slice(i)) ?? fail('an expression');
    if (!ATTRS.has(m[2])) fail(`attribute ${m[2]}`);
    if (!OPS.has(m[3])) fail(`operator ${m[3]}`);
    i += m[0].length;
    return { k: 'attr', source: m[1] === 'Request' ? 'request' : 'resource', attr: m[2], op: m[3], values: values() };
  };
  const and = (): Node => {
    let a = unary();
    while (peek('AND')) {
      eat('AND');
      a = { k: 'and', a, b: unary() };
    }
    return a;
  };
  const or = (): Node => {
    let a = and();
    while (peek('OR')) {
      eat('OR');
      a = { k: 'or', a, b: and() };
    }
    return a;
  };
  const e = or();
  ws();
  if (i !== text.length) fail('trailing text');
  return e;
}

function evaluate(n: Node, x: ConditionContext): boolean {
  switch (n.k) {
    case 'and': return evaluate(n.a, x) && evaluate(n.b, x);
    case 'or': return evaluate(n.a, x) || evaluate(n.b, x);
    case 'not': return !evaluate(n.a, x);
    case 'action': return n.name.toLowerCase() === x.action.toLowerCase();
    case 'attr': {
      // A missing attribute makes the expression false, as Azure's does.
      const v = (n.source === 'request' ? x.request : x.resource)[n.attr];
      if (v === undefined) return false;
      // A role definition id is compared by its GUID (the last segment of the id).
      const got = n.attr === CONDITION_ATTRS.RoleDefinitionId ? v.split('/').pop()! : v;
      return n.values.some((w) => w.toLowerCase() === got.toLowerCase());
    }
  }
}

/** Whether the condition allows the request; an unknown form throws (the fake's 500). */
export function conditionAllows(condition: string, x: ConditionContext): boolean {
  return evaluate(parseCondition(condition), x);
}
