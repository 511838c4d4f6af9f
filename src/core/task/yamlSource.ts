// Reading YAML the way SkyPilot (PyYAML, YAML 1.1) does, and turning syntax problems into
// diagnostics with the parser's positions.

import { Composer, Document, LineCounter, Parser, ParseOptions, DocumentOptions, SchemaOptions, YAMLError, isAlias, isScalar, visit } from 'yaml';
import { Reporter } from './diagnostics';
import { firstTooDeep, firstTooDeepFlow } from './yamlDepth';

type Tag = { tag: string; test?: RegExp };

// PyYAML's booleans: unlike the yaml package's 1.1 schema, `y` and `n` stay strings.
const PY_TRUE = /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/;
const PY_FALSE = /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/;
// PyYAML's floats need a digit: `workdir: .` is the string ".", not NaN.
const PY_FLOAT = /^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)$/;
// PyYAML's exponent form needs a dot and a signed exponent: `e0` and `1e3` are strings.
const PY_FLOAT_EXP = /^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9_]+)[eE][-+][0-9]+$/;
// Tags whose values are not plain JSON (dates, buffers, sets); their text stays a string.
const DROPPED = /:(timestamp|binary|set|omap|pairs)$/;

function pyyamlTags(tags: unknown[]): unknown[] {
  return (tags as Tag[])
    .filter((t) => !DROPPED.test(t.tag))
    .map((t) => {
      if (!t.test) return t;
      if (t.tag.endsWith(':bool')) return { ...t, test: t.test.test('yes') ? PY_TRUE : PY_FALSE };
      if (t.tag.endsWith(':float') && t.test.test('.')) return { ...t, test: PY_FLOAT };
      if (t.tag.endsWith(':float') && t.test.test('e0')) return { ...t, test: PY_FLOAT_EXP };
      return t;
    });
}

export interface YamlDocuments {
  docs: Document[];
  lines: LineCounter;
  /** Set when the text nests too deeply to be composed: the offset of the first such collection. */
  tooDeepAt?: number;
}

/** What parseAllDocuments does, with the nesting depth checked between parsing and composing. */
export function parseYamlDocuments(text: string): YamlDocuments {
  const lines = new LineCounter();
  const options: ParseOptions & DocumentOptions & SchemaOptions = {
    version: '1.1',
    lineCounter: lines,
    prettyErrors: false,
    logLevel: 'silent',
    customTags: pyyamlTags as SchemaOptions['customTags'],
  };
  const flowTooDeep = firstTooDeepFlow(text);
  if (flowTooDeep !== undefined) {
    // Positions come from the line counter the parser fills (from offset 0); fill it here instead.
    lines.addNewLine(0);
    for (let i = text.indexOf('\n'); i >= 0 && i < flowTooDeep; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1);
    return { docs: [], lines, tooDeepAt: flowTooDeep };
  }
  const tokens = Array.from(new Parser(lines.addNewLine).parse(text));
  const tooDeepAt = firstTooDeep(tokens);
  if (tooDeepAt !== undefined) return { docs: [], lines, tooDeepAt };
  const docs = Array.from(new Composer(options).compose(tokens)) as Document[];
  return { docs, lines };
}

const SYNTAX_HINTS: Record<string, string> = {
  TAB_AS_INDENT: 'indent with spaces, not tabs',
  MISSING_CHAR: 'close the quote or bracket',
  BAD_INDENT: 'check the indentation of this line',
  BLOCK_AS_IMPLICIT_KEY: 'quote the value, or write multi-line text as a block (run: |)',
  MULTILINE_IMPLICIT_KEY: 'quote the value, or write multi-line text as a block (run: |)',
  UNEXPECTED_TOKEN: 'check for a stray character, or quote the value',
  BAD_ALIAS: 'define the anchor (&name) before using it (*name)',
  DUPLICATE_KEY: 'remove one of them; the last one is used',
};

function keyAt(doc: Document, offset: number): string | undefined {
  let found: string | undefined;
  visit(doc, {
    Pair(_, pair) {
      const k = pair.key;
      if (isScalar(k) && k.range?.[0] === offset) found = String(k.value);
    },
  });
  return found;
}

/** Reports the document's syntax errors and warnings. Returns true if there was an error. */
export function reportSyntax(doc: Document, text: string, r: Reporter): boolean {
  let failed = false;
  const starts = new Set<number>();
  const report = (e: YAMLError, severity: 'error' | 'warning') => {
    const [start, end] = e.pos;
    // One problem often yields several parser errors at the same spot; the first is the clearest.
    if (starts.has(start)) return;
    starts.add(start);
    if (e.code === 'DUPLICATE_KEY') {
      const key = keyAt(doc, start);
      r.add('warning', start, Math.max(end, start + (key?.length ?? 1)), '', `duplicate key${key ? ` "${key}"` : ''}`, SYNTAX_HINTS.DUPLICATE_KEY);
      return;
    }
    if (severity === 'error') failed = true;
    const message = e.message.replace(/\s+at line \d+, column \d+.*$/s, '');
    r.add(severity, start, Math.min(Math.max(end, start), text.length), '', message,
      SYNTAX_HINTS[e.code] ?? (severity === 'error' ? 'check the YAML syntax here' : undefined));
  };
  doc.errors.forEach((e) => report(e, 'error'));
  doc.warnings.forEach((e) => report(e, 'warning'));
  // JSON objects only have text keys; `? [a, b]: 1` would be silently stringified.
  visit(doc, {
    Pair(_, pair) {
      const k = pair.key as { range?: [number, number, number] } | null;
      if (k && !isScalar(k) && !isAlias(k) && k.range) {
        failed = true;
        r.add('error', k.range[0], k.range[1], '', 'a key must be plain text, not a list or mapping', 'write the key as a plain word');
      }
    },
  });
  return failed;
}
