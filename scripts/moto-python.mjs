#!/usr/bin/env node
// Finds the Python interpreter that can run moto (the EC2 emulator of the AWS suites):
// $SKYDECK_MOTO_PYTHON if set (then only that one), else python3 on PATH, else
// ~/.pyenv/versions/*/bin/python3, newest version first. On these machines moto lives in one
// pyenv Python while /usr/bin/python3 has none, so "python3" alone depends on PATH.
//
//   node scripts/moto-python.mjs   → prints the interpreter's path (exit 0), or why none (exit 1)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROBE = 'import sys, moto, moto.server, flask; print(sys.executable); print(moto.__version__)';

/** One interpreter's answer: its real path and moto's version, or why it cannot run moto. */
function probe(python, env) {
  const r = spawnSync(python, ["-c", PROBE], { encoding: "utf8", timeout: 30_000, env });
  if (r.status === 0) {
    const [executable, version] = r.stdout.trim().split('\n');
    return { python: executable || python, version };
  }
  const why = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n').pop();
  return { why: `${python}: ${why}` };
}

function pyenvCandidates(home) {
  const dir = join(home, '.pyenv', 'versions');
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const key = (n) => n.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? p.padStart(6, '0') : p)).join('.');
  return names
    .sort((a, b) => (key(a) < key(b) ? 1 : -1))
    .map((n) => join(dir, n, 'bin', 'python3'))
    .filter((p) => existsSync(p));
}

/** {python, version} of the first interpreter that imports moto.server, or {missing, tried}. */
export function findMotoPython(env = process.env) {
  const candidates = env.SKYDECK_MOTO_PYTHON ? [env.SKYDECK_MOTO_PYTHON] : ['python3', ...pyenvCandidates(env.HOME || homedir())];
  const tried = [];
  for (const c of candidates) {
    const r = probe(c, env);
    if (r.python) return r;
    tried.push(r.why);
  }
  return {
    missing: `no Python interpreter can import moto.server (tried ${tried.join('; ') || 'nothing'}); install moto 5.x with server extras (pip install "moto[server]==5.2.1") or set SKYDECK_MOTO_PYTHON`,
    tried,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = findMotoPython();
  if (r.python) {
    process.stderr.write(`moto ${r.version} in ${r.python}\n`);
    process.stdout.write(`${r.python}\n`);
  } else {
    process.stderr.write(`${r.missing}\n`);
    process.exitCode = 1;
  }
}
