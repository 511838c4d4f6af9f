// Validates a document's plain JSON against the task schema with ajv and turns ajv's errors
// into diagnostics with positions, plain messages and fix hints.

import type { ErrorObject, ValidateFunction } from 'ajv';
import { stringify } from 'yaml';
import { Reporter, describeValue, formatPath } from './diagnostics';
import { ALL_CLOUDS } from './names';
import { Path } from './positions';
import { taskSchema } from './schema';
import { JsonSchema } from './schemaHelpers';
import { nearest } from './suggest';

let precompiled: ValidateFunction | undefined;

/**
 * The schema precompiled by scripts/write-schema.ts (see validatorCode.ts for why), loaded on
 * first use: it is 400 KB of code that extension activation should not pay for.
 */
function validator(): ValidateFunction {
  precompiled ??= require('../../../schemas/task.validator.js') as ValidateFunction;
  return precompiled;
}

const fieldsOf = (name: string): string[] =>
  Object.keys(((taskSchema.properties as JsonSchema)[name] as JsonSchema).properties as JsonSchema);
/** Top-level mistakes worth a specific hint: a resources or config field one level too high. */
const RESOURCE_FIELDS = fieldsOf('resources');
const CONFIG_FIELDS = fieldsOf('config');

/** Validates `value` (one task document) and reports every schema error. Returns true if valid. */
export function validateAgainstSchema(value: unknown, reporter: Reporter): boolean {
  const validate = validator();
  if (validate(value)) return true;
  const seen = new Set<string>();
  for (const e of selectErrors(validate.errors ?? [])) {
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    reportError(e, reporter, value);
  }
  return false;
}

/**
 * ajv reports every failing branch of an `anyOf`. When exactly one branch has the right type for
 * the value, its errors are the useful ones; otherwise the `anyOf` error alone says what is allowed.
 */
export function selectErrors(errors: ErrorObject[]): ErrorObject[] {
  const dropped = new Set<ErrorObject>();
  const alternatives = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const alt of alternatives) {
    if (dropped.has(alt)) continue;
    const prefix = `${alt.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const e of errors) {
      if (e === alt || dropped.has(e) || !e.schemaPath.startsWith(prefix)) continue;
      const branch = e.schemaPath.slice(prefix.length).split('/')[0];
      branches.set(branch, [...(branches.get(branch) ?? []), e]);
    }
    const viable = [...branches.entries()].filter(
      ([i, errs]) => !errs.some((e) => e.keyword === 'type' && e.schemaPath === `${prefix}${i}/type`),
    );
    if (viable.length === 1) {
      dropped.add(alt);
      for (const [i, errs] of branches) if (i !== viable[0][0]) errs.forEach((e) => dropped.add(e));
    } else {
      for (const errs of branches.values()) errs.forEach((e) => dropped.add(e));
    }
  }
  return errors.filter((e) => !dropped.has(e));
}

/** JSON pointer -> path segments (array indexes become numbers). */
export function pointerToPath(pointer: string, data?: unknown): Path {
  if (!pointer) return [];
  const out: Path = [];
  let node: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const isIndex = Array.isArray(node) && /^\d+$/.test(seg);
    out.push(isIndex ? Number(seg) : seg);
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
  }
  return out;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string', integer: 'a whole number', number: 'a number', boolean: 'true or false',
  object: 'a mapping', array: 'a list', null: 'empty',
};

function typeWords(types: string | string[]): string {
  const all = Array.isArray(types) ? types : [types];
  const list = all.map((t) => (t === 'boolean' && all.length > 1 ? 'a boolean' : TYPE_WORDS[t] ?? t));
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}` : list[0];
}

function inlineYaml(value: unknown): string {
  return stringify(value, { collectionStyle: 'flow', lineWidth: 0 }).trim();
}

function example(schema: JsonSchema | undefined, key: string | number | undefined): string | undefined {
  const examples = schema?.examples;
  if (!Array.isArray(examples) || examples.length === 0 || typeof key !== 'string') return undefined;
  return `for example ${key}: ${inlineYaml(examples[0])}`;
}

function typeHint(expected: string | string[], key: string | number | undefined, data: unknown): string {
  const types = Array.isArray(expected) ? expected : [expected];
  const name = typeof key === 'string' ? key : 'it';
  if (data === null || data === undefined) return `fill in a value for ${name}, or remove it`;
  if (types.includes('string') && (typeof data === 'number' || typeof data === 'boolean')) {
    return `quote it: ${name}: "${String(data)}"`;
  }
  if (types.includes('string') && typeof data === 'object') return `write it as one string, e.g. ${name}: "a b"`;
  if (types.includes('boolean')) return `use true or false`;
  if (types.includes('integer')) return `use a whole number, e.g. ${name}: 2`;
  if (types.includes('number')) return `use a number`;
  if (types.includes('object')) return `write key: value lines indented under ${name}:`;
  if (types.includes('array')) return `write a list, e.g. ${name}: [a, b]`;
  return `use ${typeWords(expected)}`;
}

/** Extra "did you mean" for values checked by a pattern. */
function patternHint(key: string | number | undefined, data: unknown, schema: JsonSchema): string | undefined {
  if (typeof data !== 'string') return undefined;
  const options = Array.isArray(schema.examples) ? schema.examples.filter((x): x is string => typeof x === 'string') : [];
  if (key === 'infra' || key === 'cloud') {
    const cloud = data.split('/')[0];
    const guess = nearest(cloud, ALL_CLOUDS);
    if (guess) return `did you mean "${[guess, ...data.split('/').slice(1)].join('/')}"?`;
    return `clouds: ${ALL_CLOUDS.join(', ')}`;
  }
  const guess = nearest(data, options);
  return guess ? `did you mean "${guess}"?` : undefined;
}

function reportError(e: ErrorObject, reporter: Reporter, value: unknown): void {
  const path = pointerToPath(e.instancePath, value);
  const subject = path.length ? formatPath(path) : 'the task';
  const key = path[path.length - 1];
  const schema = (e.parentSchema ?? {}) as JsonSchema;
  const data = e.data;
  const got = `, got ${describeValue(data)}`;
  switch (e.keyword) {
    case 'additionalProperties': {
      const prop = String((e.params as { additionalProperty: string }).additionalProperty);
      const at = [...path, prop];
      if (schema.patternProperties) {
        reporter.error(at, `"${prop}" is not a valid environment variable name`,
          'use letters, digits and underscores, not starting with a digit', 'key');
        return;
      }
      const known = Object.keys((schema.properties ?? {}) as JsonSchema);
      const where = path.length ? ` in ${subject}` : '';
      const guess = nearest(prop, known);
      let hint: string;
      if ((prop === 'any_of' || prop === 'ordered') && path.some((s) => s === 'any_of' || s === 'ordered')) {
        hint = 'any_of and ordered cannot be nested';
      } else if (path.length === 0 && RESOURCE_FIELDS.includes(prop)) {
        hint = `"${prop}" belongs under resources:`;
      } else if (path.length === 0 && CONFIG_FIELDS.includes(prop)) {
        hint = `"${prop}" settings belong under config:`;
      } else if (guess) {
        hint = `did you mean "${guess}"?`;
      } else {
        hint = `valid fields: ${known.filter((k) => !k.startsWith('_')).join(', ')}`;
      }
      reporter.error(at, `unknown field "${prop}"${where}`, hint, 'key');
      return;
    }
    case 'type': {
      const expected = (e.params as { type: string | string[] }).type;
      reporter.error(path, `${subject} must be ${typeWords(expected)}${got}`,
        example(schema, key) ?? typeHint(expected, key, data));
      return;
    }
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      reporter.error(path, `${subject} is missing "${missing}"`, `add ${missing}: under ${String(key ?? 'the task')}`, 'key');
      return;
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const limit = (e.params as { limit: number }).limit;
      const words = { minimum: 'at least', maximum: 'at most', exclusiveMinimum: 'greater than', exclusiveMaximum: 'less than' }[e.keyword];
      const of = e.keyword === 'minimum' || e.keyword === 'maximum' ? 'of ' : '';
      reporter.error(path, `${subject} must be ${words} ${limit}${got}`, `use a value ${of}${words} ${limit}`);
      return;
    }
    case 'maxProperties': {
      const limit = (e.params as { limit: number }).limit;
      const accelerator = key === 'accelerators' || key === 'gpus';
      reporter.error(path, `${subject} must have at most ${limit} ${limit === 1 ? 'entry' : 'entries'}`,
        accelerator ? 'one accelerator per candidate; add candidates for alternatives' : 'remove the extra entries');
      return;
    }
    case 'minItems':
      reporter.error(path, `${subject} must not be an empty list`, 'add at least one item or remove the field');
      return;
    case 'uniqueItems':
      reporter.error(path, `${subject} must not repeat items`, 'remove the duplicates');
      return;
    case 'pattern': {
      const text = (schema.patternErrorMessage as string | undefined) ?? 'has an invalid format';
      reporter.error(path, `${subject} ${text}${got}`, patternHint(key, data, schema) ?? example(schema, key));
      return;
    }
    case 'anyOf':
    case 'oneOf': {
      const text = (schema.errorMessage as string | undefined) ?? 'has an unsupported form';
      reporter.error(path, `${subject} ${text}${got}`, example(schema, key) ?? 'see the field description for accepted forms');
      return;
    }
    default:
      reporter.error(path, `${subject} ${e.message ?? 'is invalid'}`, example(schema, key));
  }
}
