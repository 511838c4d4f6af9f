// IAM Conditions (CEL) as IAM evaluates them on a binding, for the few forms Skydeck writes
// (controllerRole.ts JOB_CLUSTERS_CONDITION): `||` and `&&` of parenthesised terms, each one of
//   resource.type == "T"
//   resource.name.startsWith("P")
//   resource.name.extract("…{var}…").startsWith("P")
// An expression with anything else is not guessed at: evaluating it throws UnevaluableCondition,
// which the fake answers as a 500 naming the expression, so a test meets it instead of a binding
// silently granting (or silently refusing). extract() takes one placeholder, as the conditions
// reference documents it: the text after the template's prefix, up to its suffix (to the end
// when the suffix is empty); "" when the prefix (or suffix) is not in the name.

/** What a condition sees of the resource a permission is checked on (resource.type, resource.name). */
export interface ConditionResource {
  /** "compute.googleapis.com/Instance"; "" where IAM gives the resource no type attribute. */
  type: string;
  name: string;
}

export class UnevaluableCondition extends Error {}

type Node = { or: Node[] } | { and: Node[] } | { typeIs: string } | { startsWith: string; template?: string };

export function evaluateCondition(expression: string, r: ConditionResource): boolean {
  return evaluate(parse(expression), r);
}

function evaluate(n: Node, r: ConditionResource): boolean {
  if ('or' in n) return n.or.some((x) => evaluate(x, r));
  if ('and' in n) return n.and.every((x) => evaluate(x, r));
  if ('typeIs' in n) return r.type === n.typeIs;
  const value = n.template === undefined ? r.name : extract(r.name, n.template);
  return value.startsWith(n.startsWith);
}

function extract(name: string, template: string): string {
  const m = /^([^{}]*)\{[a-zA-Z_]+\}([^{}]*)$/.exec(template);
  if (!m) throw new UnevaluableCondition(`extract("${template}"): the fake takes a template with exactly one {placeholder}`);
  const [, before, after] = m;
  const at = name.indexOf(before);
  if (at < 0) return '';
  const rest = name.slice(at + before.length);
  if (!after) return rest;
  const end = rest.indexOf(after);
  return end < 0 ? '' : rest.slice(0, end);
}

const TOKEN = /\s*(\|\||&&|\(|\)|==|"(?:[^"\\]|\\.)*"|resource\.type|resource\.name\.extract|resource\.name\.startsWith|\.startsWith|\S)/y;

function parse(expression: string): Node {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    const m = TOKEN.exec(expression);
    if (!m) break;
    if (m[1]) tokens.push(m[1]);
  }
  let i = 0;
  const refuse = (why: string): never => {
    throw new UnevaluableCondition(`the GCP fake cannot evaluate the IAM condition ${JSON.stringify(expression)}: ${why} at token ${i} (${tokens[i] ?? 'end'})`);
  };
  const take = (want?: string) => {
    const t = tokens[i];
    if (t === undefined || (want !== undefined && t !== want)) refuse(`expected ${want ?? 'a token'}`);
    i++;
    return t;
  };
  const str = () => {
    const t = take();
    if (!/^".*"$/.test(t)) refuse('expected a string literal');
    return JSON.parse(t) as string;
  };
  const startsWith = () => {
    take('.startsWith');
    take('(');
    const p = str();
    take(')');
    return p;
  };
  const term = (): Node => {
    const t = tokens[i];
    if (t === '(') {
      take('(');
      const n = or();
      take(')');
      return n;
    }
    if (t === 'resource.type') {
      take();
      take('==');
      return { typeIs: str() };
    }
    if (t === 'resource.name.startsWith') {
      take();
      take('(');
      const p = str();
      take(')');
      return { startsWith: p };
    }
    if (t === 'resource.name.extract') {
      take();
      take('(');
      const template = str();
      take(')');
      return { template, startsWith: startsWith() };
    }
    return refuse('not a form the fake knows');
  };
  const and = (): Node => {
    const parts = [term()];
    while (tokens[i] === '&&') {
      take();
      parts.push(term());
    }
    return parts.length === 1 ? parts[0] : { and: parts };
  };
  const or = (): Node => {
    const parts = [and()];
    while (tokens[i] === '||') {
      take();
      parts.push(and());
    }
    return parts.length === 1 ? parts[0] : { or: parts };
  };
  const n = or();
  if (i !== tokens.length) refuse('unexpected text');
  // extract's template is checked when parsed, not only when a name reaches it.
  const templates = (x: Node): string[] => ('or' in x ? x.or.flatMap(templates) : 'and' in x ? x.and.flatMap(templates) : 'template' in x && x.template !== undefined ? [x.template] : []);
  for (const t of templates(n)) extract('', t);
  return n;
}
