// The one text edit that sets `accelerators: NAME:N` under `resources:` in a task YAML (the
// Browse GPUs command applies it as a WorkspaceEdit). Line-based on purpose: re-serialising the
// YAML would drop the user's comments, quoting and layout. What it cannot edit safely (a
// pipeline, an alias, a non-mapping `resources`) it refuses with the reason. No vscode import.

export interface TextEdit {
  /** Offsets [start, end) of the replaced text. */
  start: number;
  end: number;
  text: string;
}

export type EditResult = { ok: true; edit: TextEdit } | { ok: false; why: string };

interface Line {
  start: number;
  /** End of the text, before the line break. */
  end: number;
  text: string;
}

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  const re = /([^\r\n]*)(\r\n|\n|\r|$)/g;
  for (let m = re.exec(text); m && m.index < text.length; m = re.exec(text)) {
    out.push({ start: m.index, end: m.index + m[1].length, text: m[1] });
    if (!m[2]) break;
  }
  return out;
}

const indentOf = (s: string) => /^ */.exec(s)![0].length;
const isContent = (s: string) => s.trim() !== '' && !s.trim().startsWith('#');
const isDocMarker = (s: string) => /^(---|\.\.\.)([ \t].*)?$/.test(s);

/** Where a value's comment starts (" #" outside quotes), else the line's length. */
function commentAt(s: string, from: number): number {
  let quote = '';
  for (let i = from; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /[ \t]/.test(s[i - 1]))) return i;
  }
  return s.length;
}

/** Offset just past the bracket closing the one at `open` (quotes respected), or -1. */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  let quote = '';
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') if (--depth === 0) return i + 1;
  }
  return -1;
}

/** `NAME:N` checked (names as the catalogs spell them, a whole or fractional count). */
export function acceleratorValue(name: string, count: number): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name) || !Number.isFinite(count) || count <= 0 || count > 1024) return undefined;
  return `${name}:${count}`;
}

/** The edit setting `resources.accelerators` to `value` (from acceleratorValue). */
export function acceleratorsEdit(text: string, value: string): EditResult {
  const lines = linesOf(text);
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  // Documents with content in them (markers alone make empty documents, not a pipeline).
  let docs = 0;
  let seen = false;
  for (const l of lines) {
    if (isDocMarker(l.text)) seen = false;
    else if (!seen && isContent(l.text)) {
      seen = true;
      docs++;
    }
  }
  if (docs > 1) return { ok: false, why: 'this file holds several YAML documents (a pipeline): set accelerators in the task by hand' };
  // The file's own indent step (its smallest indentation), else two spaces.
  const steps = lines.filter((l) => isContent(l.text) && indentOf(l.text) > 0).map((l) => indentOf(l.text));
  const unit = ' '.repeat(steps.length ? Math.min(...steps) : 2);
  const at = lines.findIndex((l) => /^resources[ \t]*:(?=[ \t]|$)/.test(l.text));
  if (at < 0) {
    // No resources: a new block at the end (after a line break if the file lacks a final one).
    const sep = text === '' || /[\r\n]$/.test(text) ? '' : eol;
    return { ok: true, edit: { start: text.length, end: text.length, text: `${sep}resources:${eol}${unit}accelerators: ${value}${eol}` } };
  }
  const head = lines[at];
  const colon = head.start + head.text.indexOf(':') + 1;
  const valueEnd = head.start + commentAt(head.text, head.text.indexOf(':') + 1);
  const inline = text.slice(colon, valueEnd).trim();
  if (inline.startsWith('{')) return flowEdit(text, colon + text.slice(colon).indexOf('{'), value);
  if (inline !== '' && inline !== 'null' && inline !== '~') {
    return { ok: false, why: `resources: holds ${/^[&*!]/.test(inline) ? 'an anchor, alias or tag' : 'something other than a mapping'}; set accelerators by hand` };
  }
  // The block's lines: up to the next line at column 0 that is not a comment.
  let last = at;
  while (last + 1 < lines.length && (!isContent(lines[last + 1].text) || indentOf(lines[last + 1].text) > 0)) last++;
  const body = lines.slice(at + 1, last + 1);
  const first = body.find((l) => isContent(l.text));
  const child = first ? indentOf(first.text) : unit.length;
  const accIdx = body.findIndex((l) => indentOf(l.text) === child && /^ *accelerators[ \t]*:(?=[ \t]|$)/.test(l.text));
  if (accIdx < 0) {
    // A new first key of the block; a `null`/`~` after `resources:` goes.
    const line = `${' '.repeat(child)}accelerators: ${value}`;
    if (!inline) return { ok: true, edit: { start: head.end, end: head.end, text: `${eol}${line}` } };
    const comment = text.slice(valueEnd, head.end).trim();
    return { ok: true, edit: { start: colon, end: head.end, text: `${comment ? ` ${comment}` : ''}${eol}${line}` } };
  }
  const acc = body[accIdx];
  const accColon = acc.start + acc.text.indexOf(':') + 1;
  const accValueEnd = acc.start + commentAt(acc.text, acc.text.indexOf(':') + 1);
  const old = text.slice(accColon, accValueEnd).trim();
  if (old.startsWith('{') || old.startsWith('[')) {
    // A flow value (may span lines): replaced whole.
    const open = accColon + text.slice(accColon).search(/[{[]/);
    const close = closingBracket(text, open);
    if (close < 0) return { ok: false, why: 'resources.accelerators: an unclosed [ or {' };
    return { ok: true, edit: { start: open, end: close, text: value } };
  }
  if (old !== '') return { ok: true, edit: { start: accColon, end: accValueEnd, text: ` ${value}${accValueEnd < acc.end ? ' ' : ''}` } };
  // A block value (dict form `V100: 1` or a list): its lines are deeper, or `- ` at the key's own indent.
  const block: Line[] = [];
  for (const l of body.slice(accIdx + 1)) {
    if (isContent(l.text) && !(indentOf(l.text) > child || (indentOf(l.text) === child && /^ *- /.test(l.text)))) break;
    block.push(l);
  }
  while (block.length && !isContent(block[block.length - 1].text)) block.pop();
  if (!block.length) return { ok: true, edit: { start: accColon, end: accValueEnd, text: ` ${value}` } };
  // The old value's lines go; comment lines among them stay, after the new value.
  const kept = block.filter((l) => l.text.trim().startsWith('#')).map((l) => `${eol}${l.text}`).join('');
  return { ok: true, edit: { start: accColon, end: block[block.length - 1].end, text: ` ${value}${text.slice(accValueEnd, acc.end)}${kept}` } };
}

/** `resources: {cpus: 4}` → `{cpus: 4, accelerators: 'A100:8'}` (quoted: a colon in a flow mapping). */
function flowEdit(text: string, open: number, value: string): EditResult {
  const close = closingBracket(text, open);
  if (close < 0) return { ok: false, why: 'resources: an unclosed {' };
  const inner = text.slice(open + 1, close - 1);
  const quoted = `'${value}'`;
  // Top-level entries of the mapping, with their offsets.
  let depth = 0;
  let quote = '';
  let from = 0;
  const entries: [number, number][] = [];
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (i === inner.length || (!quote && depth === 0 && c === ',')) {
      entries.push([from, i]);
      from = i + 1;
    } else if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  for (const [s, e] of entries) {
    const m = /^(\s*["']?accelerators["']?\s*:)(\s*)/.exec(inner.slice(s, e));
    if (m) {
      const vs = open + 1 + s + m[1].length + m[2].length;
      const ve = open + 1 + e - (/\s*$/.exec(inner.slice(s, e))![0].length);
      return { ok: true, edit: { start: vs, end: ve, text: `${m[2] ? '' : ' '}${quoted}` } };
    }
  }
  const trimmed = inner.replace(/[\s,]*$/, '');
  const end = open + 1 + trimmed.length;
  return { ok: true, edit: { start: end, end: end, text: `${trimmed.trim() ? ', ' : ''}accelerators: ${quoted}` } };
}

/** The text with the edit applied (tests; the editor applies the edit itself). */
export function applyEdit(text: string, e: TextEdit): string {
  return text.slice(0, e.start) + e.text + text.slice(e.end);
}
