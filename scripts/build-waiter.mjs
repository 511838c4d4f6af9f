#!/usr/bin/env node
// Builds native/skydeck_wait.c (the resident part of a job's driver, see its header) into
// agent/bin/skydeck-wait-<machine>, for this machine's architecture and for the other one when
// its cross compiler is on PATH. The agent uses a binary only if it answers `--probe`; a node
// without one (no compiler here, another architecture) keeps the sh driver, which works the same
// but keeps ~0.13 MB more per running job.
//
//   node scripts/build-waiter.mjs   → prints what it built or why not (exit 0 either way; 1 when
//                                     SKYDECK_REQUIRE_WAITER=1 and this machine's build failed)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { arch } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = join(root, 'native', 'skydeck_wait.c');
const INCLUDED = [join(root, 'native', 'skydeck_launch.c'), join(root, 'native', 'skydeck_park.c')];
// No libc, no PIE (nothing to relocate: no page is written at start), no unwind tables.
const FLAGS = ['-Os', '-static', '-nostdlib', '-ffreestanding', '-fno-builtin', '-fno-stack-protector', '-fno-pie', '-no-pie',
  '-fno-asynchronous-unwind-tables', '-Wall', '-Werror', '-Wl,--build-id=none', '-s'];
const HOST = { x64: 'x86_64', arm64: 'aarch64' }[arch()];
const TARGETS = [
  { machine: 'x86_64', compilers: HOST === 'x86_64' ? ['cc', 'gcc'] : ['x86_64-linux-gnu-gcc'] },
  { machine: 'aarch64', compilers: HOST === 'aarch64' ? ['cc', 'gcc'] : ['aarch64-linux-gnu-gcc'] },
];

export function waiterPath(machine = HOST) {
  return join(root, 'agent', 'bin', `skydeck-wait-${machine}`);
}

function fresh(out) {
  const inputs = [SOURCE, ...INCLUDED, fileURLToPath(import.meta.url)];
  return existsSync(out) && inputs.every((f) => statSync(out).mtimeMs >= statSync(f).mtimeMs);
}

/** Builds what can be built; returns one line per target saying what happened. */
export function buildWaiters() {
  mkdirSync(join(root, 'agent', 'bin'), { recursive: true });
  const said = [];
  let hostOk = false;
  for (const t of TARGETS) {
    const out = waiterPath(t.machine);
    if (fresh(out)) {
      said.push(`${t.machine}: up to date`);
      hostOk ||= t.machine === HOST;
      continue;
    }
    const cc = t.compilers.find((c) => spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0);
    if (!cc) {
      said.push(`${t.machine}: not built (no ${t.compilers.join(' or ')} on PATH)`);
      continue;
    }
    const tmp = `${out}.${process.pid}.tmp`;
    const r = spawnSync(cc, [...FLAGS, '-o', tmp, SOURCE], { encoding: 'utf8' });
    if (r.status !== 0) {
      said.push(`${t.machine}: ${cc} failed: ${(r.stderr || r.error?.message || '').trim()}`);
      continue;
    }
    renameSync(tmp, out);
    said.push(`${t.machine}: built with ${cc}`);
    hostOk ||= t.machine === HOST;
  }
  return { said, hostOk };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { said, hostOk } = buildWaiters();
  for (const s of said) console.log(`skydeck-wait ${s}`);
  if (!hostOk && process.env.SKYDECK_REQUIRE_WAITER === '1') {
    console.error(`skydeck-wait for ${HOST} could not be built; install a C compiler (apt-get install gcc)`);
    process.exit(1);
  }
}
