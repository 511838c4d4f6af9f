// Ends the agent daemons a test started under its own temporary directory. On a real cloud the
// machine's end ends them; a fake cloud's "instances" are this machine, so an agent with autostop
// set would stay to count idle time after the test. Only processes whose command line names a
// base inside `dir` (a directory the test made) are signalled.
import * as fs from 'node:fs';

export function endAgentsUnder(dir: string): number[] {
  const prefix = dir.replace(/\/+$/, '') + '/';
  const ended: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let argv: string[];
    try {
      argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    const base = argv[argv.indexOf('--base') + 1];
    if (argv.includes('--base') && base?.startsWith(prefix)) {
      try {
        process.kill(Number(entry), 'SIGTERM');
        ended.push(Number(entry));
      } catch {
        // already gone
      }
    }
  }
  return ended;
}
