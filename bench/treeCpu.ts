// CPU ms (user + system) of this process and every process below it, counting the children
// they already reaped (cutime/cstime): with the loopback test host that is the node's side too
// (its sshd, shells, find, Python and the agent all descend from the bench). On a machine
// shared with other work the wall time is noise; this is what a step cost. Linux only.
import * as fs from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export function treeCpuMs(root = process.pid): number {
  const kids = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let s: string;
    try {
      s = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile: its time is in its parent's cutime once reaped
    }
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    const pid = Number(d);
    const ppid = Number(f[1]);
    cpu.set(pid, (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS);
    if (!kids.has(ppid)) kids.set(ppid, []);
    kids.get(ppid)!.push(pid);
  }
  let total = 0;
  const todo = [root];
  while (todo.length) {
    const p = todo.pop()!;
    total += cpu.get(p) ?? 0;
    todo.push(...(kids.get(p) ?? []));
  }
  return total;
}
