// Small builders for the task JSON Schema. The schema is draft-07 and inlines everything
// (no $ref) so validator error paths stay simple. `errorMessage` / `patternErrorMessage` are
// read by VS Code's JSON and YAML validators; Skydeck's own diagnostics use them too.

import { caseInsensitivePattern } from './names';

export type JsonSchema = { [key: string]: unknown };

/** An env reference such as `$STORE` or `${STORE}`, filled in before launch. */
const ENV_REFERENCE = '\\$\\{?[A-Za-z_][A-Za-z0-9_]*\\}?';

/**
 * A string field limited to `values`, compared case-insensitively as SkyPilot does. With
 * `envReference`, a `$NAME` reference (file_mounts values, filled from envs) is accepted too.
 */
export function choice(values: readonly string[], description: string, envReference = false): JsonSchema {
  const pattern = caseInsensitivePattern(values);
  return {
    type: 'string',
    description,
    // Both alternatives anchored at both ends: `^(MOUNT|COPY)|\$X$` would accept MOUNTED.
    pattern: envReference ? `^(${pattern.slice(1, -1)}|${ENV_REFERENCE})$` : pattern,
    patternErrorMessage: `must be one of ${values.join(', ')}`,
    examples: [...values],
  };
}

export function str(description: string, extra: JsonSchema = {}): JsonSchema {
  return { type: 'string', description, ...extra };
}

export function bool(description: string): JsonSchema {
  return { type: 'boolean', description };
}

export function int(description: string, extra: JsonSchema = {}): JsonSchema {
  return { type: 'integer', description, ...extra };
}

export function num(description: string, extra: JsonSchema = {}): JsonSchema {
  return { type: 'number', description, ...extra };
}

/** A mapping with a closed set of keys. */
export function obj(description: string, properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', description, additionalProperties: false, properties, ...extra };
}

/** A mapping of string keys to string values (labels, per-region images). */
export function stringMap(description: string): JsonSchema {
  return { type: 'object', description, additionalProperties: { type: 'string' } };
}

/** A mapping whose contents SkyPilot validates elsewhere (or not at all). */
export function openObject(description: string): JsonSchema {
  return { type: 'object', description };
}

/** Sizes: a whole number (GB) or a number with a unit (`100GB`, `1TB`, `512Mi`). */
export const SIZE_PATTERN = '^[0-9]+([kKmMgGtTpP][bBiI]?|[bB])?$';

export function size(description: string): JsonSchema {
  return {
    description,
    anyOf: [
      { type: 'integer', minimum: 0 },
      {
        type: 'string',
        pattern: SIZE_PATTERN,
        patternErrorMessage: 'must be a number of GB or a size such as 100GB or 1TB',
        examples: ['100GB'],
      },
    ],
    errorMessage: 'must be a number of GB or a size such as 100GB or 1TB',
    examples: [256, '100GB', '1TB'],
  };
}

/** Durations in minutes with an optional unit: `30`, `10m`, `2h`, `1d`, `1w`. */
export const TIME_PATTERN = '^[0-9]+[mMhHdDwW]?$';
