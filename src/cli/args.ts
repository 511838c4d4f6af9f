/** A small argv parser: flags with values, boolean flags, repeated flags, and positionals. */
export interface FlagSpec {
  /** long name without dashes, e.g. "cluster" */
  name: string;
  short?: string;
  takesValue?: boolean;
  repeated?: boolean;
}

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean | string[]>;
}

export class UsageError extends Error {}

export function parseArgs(argv: string[], specs: FlagSpec[]): ParsedArgs {
  const out: ParsedArgs = { positionals: [], flags: {} };
  const byName = new Map<string, FlagSpec>();
  for (const s of specs) {
    byName.set(`--${s.name}`, s);
    if (s.short) byName.set(`-${s.short}`, s);
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      out.positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const key = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const spec = byName.get(key);
    if (!spec) throw new UsageError(`unknown option ${key}`);
    if (!spec.takesValue) {
      out.flags[spec.name] = true;
      continue;
    }
    const value = eq > 0 && a.startsWith('--') ? a.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`option ${key} needs a value`);
    if (spec.repeated) ((out.flags[spec.name] ??= []) as string[]).push(value);
    else out.flags[spec.name] = value;
  }
  return out;
}
