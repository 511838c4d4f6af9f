// Which processes a UI test left running on this machine. Jobs on the `local` cloud run in
// their own sessions (the agent setsid's its drivers), so they are not in code-server's
// process tree and stopping code-server does not end them. They are recognised by the test's
// scratch workspace path (unique per run) in their working directory, command line or
// environment: the agent's base dir and the jobs' workdir live under it.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface Proc {
  pid: number;
  pgid: number;
  cmd: string;
}

interface Stat {
  ppid: number;
  pgid: number;
  state: string;
}

function stat(pid: number): Stat | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses.
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

const read = (f: string) => {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return '';
  }
};

/**
 * Live (non-zombie) processes that refer to `dir`, except this process and those descending
 * from `exceptTreesOf` (code-server: its own helpers, e.g. ripgrep, see the workspace too and
 * end with it).
 */
export function processesUsing(dir: string, exceptTreesOf: number[] = []): Proc[] {
  const all = new Map<number, Stat>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const s = stat(Number(e));
    if (s && s.state !== 'Z') all.set(Number(e), s);
  }
  const descends = (pid: number) => {
    for (let p: number | undefined = pid, hops = 0; p && p > 1 && hops < 64; p = all.get(p)?.ppid, hops++) {
      if (exceptTreesOf.includes(p)) return true;
    }
    return false;
  };
  const out: Proc[] = [];
  for (const [pid, s] of all) {
    if (pid === process.pid || descends(pid)) continue;
    let cwd = '';
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      /* exited, or not ours to read */
    }
    const cmd = read(`/proc/${pid}/cmdline`).split('\0').join(' ').trim();
    if (cwd.startsWith(dir) || cmd.includes(dir) || read(`/proc/${pid}/environ`).includes(dir)) out.push({ pid, pgid: s.pgid, cmd });
  }
  return out;
}

/**
 * Ends the given processes: SIGTERM, then SIGKILL after `graceMs`. A process that leads its
 * own group (a job driver) gets the signal for its group too, so the job's children go with it.
 */
export async function killProcesses(procs: Proc[], graceMs = 3000): Promise<void> {
  const send = (sig: NodeJS.Signals) => {
    for (const p of procs) {
      for (const target of p.pgid === p.pid && p.pgid > 1 ? [-p.pgid, p.pid] : [p.pid]) {
        try {
          process.kill(target, sig);
        } catch {
          /* already gone */
        }
      }
    }
  };
  const alive = () => procs.filter((p) => (stat(p.pid)?.state ?? 'Z') !== 'Z');
  send('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive().length) send('SIGKILL');
}
