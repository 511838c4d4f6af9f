// Hover text for task YAML fields: which key the cursor is on (from the YAML syntax tree) and
// what the task JSON Schema says about it. No vscode import, so it is unit-tested in plain Node.

import { Node, isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import { formatPath, taskSchema } from '../../core/task';

type Schema = { [key: string]: unknown };
type Segment = string | number;

export interface FieldDescription {
  /** The described field, formatted as in diagnostics: `resources.any_of[0].cpus`. */
  path: string;
  description: string;
  /** Offsets [start, end) of the key (or list item) under the cursor, for the hover range. */
  start: number;
  end: number;
}

interface Hit {
  path: Segment[];
  start: number;
  end: number;
}

const within = (offset: number, range: readonly number[] | null | undefined): boolean =>
  !!range && offset >= range[0] && offset < range[1];

/** The deepest key or list item containing `offset`, with its path from the document root. */
function hitAt(node: Node | null | undefined, offset: number, path: Segment[]): Hit | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key as Node | null;
      if (!isScalar(key) || !key.range) continue; // complex keys and aliases have no schema field
      const here = [...path, String(key.value)];
      if (within(offset, key.range)) return { path: here, start: key.range[0], end: key.range[1] };
      const value = pair.value as Node | null;
      if (value && within(offset, value.range)) {
        // On a scalar value (`cpus: 4`, cursor on 4): describe the key it belongs to.
        return hitAt(value, offset, here) ?? { path: here, start: key.range[0], end: key.range[1] };
      }
    }
  } else if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      const item = node.items[i] as Node | null;
      if (item && within(offset, item.range)) {
        return hitAt(item, offset, [...path, i]) ?? { path: [...path, i], start: item.range![0], end: item.range![1] };
      }
    }
  }
  return undefined;
}

/** Follows `#/definitions/...` refs (the candidates of any_of / ordered use one). */
function deref(s: Schema): Schema {
  for (let hops = 0; typeof s.$ref === 'string' && s.$ref.startsWith('#/') && hops < 10; hops++) {
    let target: unknown = taskSchema;
    for (const part of s.$ref.slice(2).split('/')) target = (target as Schema | undefined)?.[part];
    if (!target || typeof target !== 'object') break;
    s = target as Schema;
  }
  return s;
}

/** The schema and every anyOf / oneOf / allOf alternative under it (a field may be in any). */
function alternatives(s: Schema, depth = 0): Schema[] {
  const self = deref(s);
  const out = [self];
  if (depth > 5) return out;
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    const list = self[k];
    if (Array.isArray(list)) for (const b of list) if (b && typeof b === 'object') out.push(...alternatives(b as Schema, depth + 1));
  }
  return out;
}

function asSchema(v: unknown): Schema | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Schema) : undefined;
}

/** Schemas a child at `seg` may match, across all alternatives of `s`. */
function children(s: Schema, seg: Segment): Schema[] {
  const out: Schema[] = [];
  for (const alt of alternatives(s)) {
    if (typeof seg === 'number') {
      const items = alt.items;
      const item = Array.isArray(items) ? asSchema(items[seg]) : asSchema(items);
      if (item) out.push(deref(item));
      continue;
    }
    const prop = asSchema(asSchema(alt.properties)?.[seg]);
    if (prop) {
      out.push(deref(prop));
      continue;
    }
    const patterns = asSchema(alt.patternProperties) ?? {};
    const byPattern = Object.entries(patterns).find(([re]) => safeTest(re, seg));
    if (byPattern && asSchema(byPattern[1])) out.push(deref(byPattern[1] as Schema));
    else if (asSchema(alt.additionalProperties)) out.push(deref(alt.additionalProperties as Schema));
  }
  return out;
}

function safeTest(pattern: string, s: string): boolean {
  try {
    return new RegExp(pattern).test(s);
  } catch {
    return false;
  }
}

/** The schema `description` of the field at `path`, or undefined when it has none. */
export function describePath(path: Segment[]): string | undefined {
  let current: Schema[] = [taskSchema];
  for (const seg of path) {
    current = current.flatMap((s) => children(s, seg));
    if (current.length === 0) return undefined;
  }
  const found = current.find((s) => typeof s.description === 'string');
  return found?.description as string | undefined;
}

/**
 * What the schema says about the field at `offset` in task YAML `text`. A key the schema does not
 * describe itself (an env name, a file_mounts destination, a list item) gets the description of
 * the nearest field above it, and `path` names that field. Never throws.
 */
export function describeFieldAt(text: string, offset: number): FieldDescription | undefined {
  try {
    for (const doc of parseAllDocuments(text, { logLevel: 'silent' }) as unknown as { contents: Node | null }[]) {
      const hit = hitAt(doc.contents, offset, []);
      if (!hit) continue;
      for (let n = hit.path.length; n > 0; n--) {
        const path = hit.path.slice(0, n);
        const description = describePath(path);
        if (description) return { path: formatPath(path), description, start: hit.start, end: hit.end };
      }
      return undefined;
    }
  } catch {
    // A hover must never fail loudly; a half-typed file just gets no hover.
  }
  return undefined;
}
