// Map a field path in a document's plain JSON back to a range in the YAML source.

import { Document, LineCounter, Node, Pair, isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';

export type PathSegment = string | number;
export type Path = PathSegment[];

export interface Range {
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

/** Which part of a `key: value` pair a diagnostic points at. */
export type Target = 'value' | 'key';

/** Converts byte offsets to 1-based line/column ranges. */
export class SourceMap {
  constructor(private readonly text: string, private readonly lines: LineCounter) {}

  range(start: number, end: number): Range {
    const s = this.lines.linePos(Math.min(start, this.text.length));
    const e = this.lines.linePos(Math.min(Math.max(end, start), this.text.length));
    return { line: s.line, col: s.col, endLine: e.line, endCol: e.col };
  }
}

function keyString(pair: Pair): string | undefined {
  const k = pair.key;
  if (k === null || k === undefined) return '';
  if (isScalar(k)) return k.value === null ? '' : typeof k.value === 'symbol' ? undefined : String(k.value);
  return undefined;
}

function isMergePair(pair: Pair): boolean {
  if (!isScalar(pair.key)) return false;
  const v = pair.key.value;
  // The YAML 1.1 schema resolves `<<` to a symbol.
  return v === '<<' || (typeof v === 'symbol' && v.description === '<<');
}

/** Finds the pair for `key` in a map, looking through `<<: *anchor` merges too. */
function findPair(doc: Document, map: Node, key: string, depth = 0): Pair | undefined {
  if (!isMap(map) || depth > 10) return undefined;
  let found: Pair | undefined;
  for (const item of map.items) {
    if (keyString(item) === key) found = item; // the last duplicate wins, as in the parsed value
  }
  if (found) return found;
  for (const item of map.items) {
    if (!isMergePair(item)) continue;
    const sources = isSeq(item.value) ? item.value.items : [item.value];
    for (const source of sources) {
      const target = resolve(doc, source as Node);
      const pair = target && findPair(doc, target, key, depth + 1);
      if (pair) return pair;
    }
  }
  return undefined;
}

function resolve(doc: Document, node: Node | null | undefined): Node | undefined {
  if (!node) return undefined;
  if (isAlias(node)) {
    const target = node.resolve(doc);
    return (target as Node | undefined) ?? node;
  }
  return node;
}

interface Located {
  /** The deepest node found along the path. */
  node: Node | undefined;
  /** The pair holding it, when the last segment found was a mapping key. */
  pair: Pair | undefined;
  /** True when every segment was found. */
  complete: boolean;
}

export function locate(doc: Document, path: Path): Located {
  let node: Node | undefined = resolve(doc, doc.contents as Node | null);
  let pair: Pair | undefined;
  for (const seg of path) {
    const current = resolve(doc, node);
    if (current && isMap(current)) {
      const next = findPair(doc, current, String(seg));
      if (!next) return { node: current, pair, complete: false };
      pair = next;
      node = (next.value as Node | null) ?? undefined;
      if (!node) return { node: undefined, pair, complete: true };
    } else if (current && isSeq(current) && typeof seg === 'number' && seg < current.items.length) {
      pair = undefined;
      node = current.items[seg] as Node;
    } else {
      return { node: current, pair, complete: false };
    }
  }
  return { node, pair, complete: true };
}

/** Offsets [start, end) of what a diagnostic about `path` should underline. */
export function offsetsFor(doc: Document, path: Path, target: Target = 'value'): [number, number] {
  const docStart = doc.contents?.range?.[0] ?? doc.range?.[0] ?? 0;
  const { node, pair, complete } = locate(doc, path);
  const keyNode = pair && isPair(pair) ? (pair.key as Node | null) : null;
  if (complete && target === 'key' && keyNode?.range) return [keyNode.range[0], keyNode.range[1]];
  // A block mapping or list spans many lines, and an empty value has no text: the key reads better.
  const block = node && (isMap(node) || isSeq(node)) && !node.flow;
  const blank = node && isScalar(node) && node.value === null && node.range && node.range[0] === node.range[1];
  if (complete && (block || blank) && keyNode?.range) return [keyNode.range[0], keyNode.range[1]];
  if (complete && node?.range) return [node.range[0], node.range[1]];
  // An empty value (`run:`): point at its key.
  if (complete && keyNode?.range) return [keyNode.range[0], keyNode.range[1]];
  if (node?.range) return [node.range[0], node.range[1]];
  return [docStart, docStart];
}
