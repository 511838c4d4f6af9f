// `--env-file FILE`: a dotenv file as `sky` reads one (python-dotenv): `KEY=VALUE` lines,
// optional `export `, `#` comments, 'single' (literal) and "double" (with \n, \t, \", \\)
// quoted values. A line that is none of these is an error naming its line, never skipped.

import { printable } from './printable';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' };

export type EnvFileResult = { ok: true; values: Record<string, string> } | { ok: false; error: string };

export function parseEnvFile(text: string, file: string): EnvFileResult {
  const values: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line || line.startsWith('#')) continue;
    const body = line.replace(/^export\s+/, '');
    const eq = body.indexOf('=');
    const key = (eq < 0 ? body : body.slice(0, eq)).trim();
    const bad = (why: string): EnvFileResult => ({ ok: false, error: printable(`${file}:${i + 1}: ${why}`) });
    if (eq < 0) return bad(`expected NAME=VALUE, got ${JSON.stringify(line.slice(0, 80))}`);
    if (!NAME.test(key)) return bad(`"${key.slice(0, 80)}" is not a valid variable name`);
    const value = valueOf(body.slice(eq + 1).trim());
    if (value === undefined) return bad(`the value of ${key} has an unclosed quote`);
    Object.defineProperty(values, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { ok: true, values };
}

function valueOf(v: string): string | undefined {
  if (v.startsWith("'")) {
    const end = v.indexOf("'", 1);
    return end < 0 ? undefined : v.slice(1, end);
  }
  if (v.startsWith('"')) {
    let out = '';
    for (let i = 1; i < v.length; i++) {
      const c = v[i];
      if (c === '"') return out;
      if (c === '\\' && i + 1 < v.length) out += ESCAPES[v[++i]] ?? `\\${v[i]}`;
      else out += c;
    }
    return undefined;
  }
  // Unquoted: a ` #` starts a comment.
  const hash = v.search(/\s#/);
  return (hash < 0 ? v : v.slice(0, hash)).trim();
}
