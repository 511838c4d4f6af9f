// Ending a process tree that test runners and benchmarks started: its process group AND every
// process that descends from its leader (terminals and code-server's helpers setsid out of the
// group), SIGTERM first, SIGKILL what is left after a grace period. Linux (/proc) only.
import { readdirSync, readFileSync } from 'node:fs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Processes in the tree below `root` (from /proc), and those in process group `pgid`. */
export function processesOf(root, pgid) {
  const procs = new Map(); // pid -> {ppid, pgrp, state}
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      // pid (comm) state ppid pgrp ... ; comm may hold spaces and parentheses
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.set(Number(e), { state: rest[0], ppid: Number(rest[1]), pgrp: Number(rest[2]) });
    } catch {
      /* exited meanwhile */
    }
  }
  const out = new Set();
  const children = new Map();
  for (const [pid, p] of procs) {
    if (!children.has(p.ppid)) children.set(p.ppid, []);
    children.get(p.ppid).push(pid);
    if (p.pgrp === pgid) out.add(pid);
  }
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop();
    if (procs.has(pid)) out.add(pid);
    for (const c of children.get(pid) ?? []) stack.push(c);
  }
  // Zombies are gone for our purposes (init reaps orphans only every ~1.5 s here).
  return [...out].filter((pid) => procs.get(pid)?.state !== 'Z');
}

/** Whether `pid` is a live (not zombie) process. */
export function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * SIGTERM to group `pgid` (a process started with detached:true, so its pid) and every
 * descendant, SIGKILL to whatever is left after `graceMs`. `onKill(n, pids)` is told when
 * SIGKILL was needed. Resolves once all of them are gone (or 2 s after the SIGKILL).
 */
export async function stopTree(pgid, graceMs, onKill = () => {}) {
  if (!pgid) return;
  // Remember the descendants now: once the leader dies they are re-parented to init.
  const known = new Set(processesOf(pgid, pgid));
  const signal = (sig) => {
    try {
      process.kill(-pgid, sig);
    } catch {
      /* group empty */
    }
    for (const pid of known) {
      try {
        process.kill(pid, sig);
      } catch {
        known.delete(pid);
      }
    }
  };
  const alive = () => {
    for (const pid of processesOf(pgid, pgid)) known.add(pid);
    return [...known].filter(isAlive);
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive().length && Date.now() < deadline) await sleep(50);
  const left = alive();
  if (left.length) {
    onKill(left.length, left);
    signal('SIGKILL');
    const d2 = Date.now() + 2000;
    while (alive().length && Date.now() < d2) await sleep(50);
  }
}
