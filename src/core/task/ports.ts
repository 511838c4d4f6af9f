// `ports: 8080`, `ports: "8000-8010"`, `ports: [22, "8000-8010"]`.

import { PortRange } from './types';

export interface PortProblem {
  /** Index in the list form; undefined for a single value. */
  at?: number;
  problem: string;
  hint: string;
}

const HINT = 'use a port between 1 and 65535 or a range such as 8000-8010';

function isPort(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}

export function parsePort(value: unknown): PortRange | string {
  const text = String(value).trim();
  const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(text);
  if (!m) return `must be a port or a range such as 8000-8010, got ${JSON.stringify(text)}`;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (!isPort(from) || !isPort(to)) return `must be between 1 and 65535, got ${text}`;
  if (to < from) return `must be a range from low to high, got ${text}`;
  return { from, to };
}

export function parsePorts(value: unknown): { ports: PortRange[]; problems: PortProblem[] } {
  const ports: PortRange[] = [];
  const problems: PortProblem[] = [];
  if (value === null || value === undefined) return { ports, problems };
  const list = Array.isArray(value) ? value : [value];
  list.forEach((v, i) => {
    const r = parsePort(v);
    if (typeof r === 'string') problems.push({ at: Array.isArray(value) ? i : undefined, problem: r, hint: HINT });
    else ports.push(r);
  });
  return { ports, problems };
}
