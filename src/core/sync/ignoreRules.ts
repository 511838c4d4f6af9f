/**
 * A .gitignore / .skyignore matcher for workdir sync. Supports what real repos use: comments,
 * blank lines, `!` negation, trailing `/` (directories only), leading or inner `/` (anchored to
 * the file's directory), `*`, `?`, `[...]` and `**`. Rules in deeper directories are applied
 * after shallower ones, and the last matching rule wins, as in git.
 */
interface Rule {
  base: string; // directory of the ignore file, relative to the root, '' for the root
  negate: boolean;
  dirOnly: boolean;
  re: RegExp;
}

export class IgnoreRules {
  private readonly rules: Rule[] = [];

  /** Adds the rules of an ignore file found in `base` (relative dir, '' for the root). */
  add(base: string, text: string): void {
    for (const raw of text.split(/\r?\n/)) {
      let line = raw.replace(/(?<!\\)\s+$/, '');
      if (!line || line.startsWith('#')) continue;
      const negate = line.startsWith('!');
      if (negate) line = line.slice(1);
      if (line.startsWith('\\')) line = line.slice(1);
      const dirOnly = line.endsWith('/');
      if (dirOnly) line = line.slice(0, -1);
      const anchored = line.includes('/');
      if (line.startsWith('/')) line = line.slice(1);
      if (!line) continue;
      const body = globToRegex(line);
      this.rules.push({ base, negate, dirOnly, re: new RegExp(anchored ? `^${body}$` : `^(?:.*/)?${body}$`) });
    }
  }

  /** True if `rel` (posix path relative to the root) is ignored. */
  ignores(rel: string, isDir: boolean): boolean {
    let ignored = false;
    for (const r of this.rules) {
      if (r.dirOnly && !isDir) continue;
      if (r.base && !rel.startsWith(r.base + '/')) continue;
      const sub = r.base ? rel.slice(r.base.length + 1) : rel;
      if (r.re.test(sub)) ignored = !r.negate;
    }
    return ignored;
  }
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // "**/" matches zero or more directories; a trailing "**" matches everything below.
      if (glob[i + 2] === '/') {
        out += '(?:.*/)?';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) out += '\\[';
      else {
        const cls = glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        out += `[${cls}]`;
        i = end;
      }
    } else if (c === '\\' && i + 1 < glob.length) out += escapeRe(glob[++i]);
    else out += escapeRe(c);
  }
  return out;
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
