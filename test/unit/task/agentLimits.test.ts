// Issue 12.5: the task parser refuses, with a position, every job the agent would refuse at
// submit. The limits are checked against the agent's own Python so the two cannot drift.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as limits from '../../../src/core/task/agentLimits';
import { resolveEnvs } from '../../../src/core/task';
import { jobSpecOf } from '../../../src/core/ops/jobSpec';
import { parse } from './helpers';

const agentDir = join(__dirname, '..', '..', '..', 'agent');

/** Runs `code` with the agent's spec module imported as `spec`; stdin/stdout are JSON. */
function agentPython(code: string, input: unknown): unknown {
  const script = `import json, sys\nsys.path.insert(0, ${JSON.stringify(agentDir)})\nfrom skydeck_agent_lib import spec\n${code}`;
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(input), maxBuffer: 64 << 20 });
  // No python3 means the agreement is unproven: fail loudly rather than skip.
  assert.equal(r.error, undefined, `python3 is needed to check the agent's limits: ${r.error?.message}`);
  assert.equal(r.status, 0, r.stderr.toString());
  return JSON.parse(r.stdout.toString());
}

/** What launch would submit for `yaml` (as loadTaskForRun builds it), or the parser's errors. */
function submitted(yaml: string): { errors: string[]; spec?: unknown } {
  const r = parse(yaml);
  const errors = r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.col} ${d.path} ${d.message}`);
  const task = r.tasks[0];
  if (!task) return { errors };
  const { envs } = resolveEnvs(task, {});
  for (const [k, v] of Object.entries(task.secrets)) if (v !== null) envs[k] = v;
  return { errors, spec: jobSpecOf(task, envs, { user: 'tester', workdir: '/home/tester/sky_workdir', withSetup: true }) };
}

const q = (s: string) => JSON.stringify(s);
const big = (n: number, c = 'x') => c.repeat(n);

describe('task YAML: the agent\'s job limits', () => {
  it('issue 12.5: the TS limits are the values the agent enforces (read from spec.py)', () => {
    const py = agentPython(
      'print(json.dumps({"name": spec.MAX_NAME, "script": spec.MAX_SCRIPT, "path": spec.MAX_PATH, ' +
        '"entry": spec.MAX_ENV_ENTRY, "total": spec.MAX_ENV_TOTAL}))',
      null,
    ) as Record<string, number>;
    assert.deepEqual(
      { name: py.name, script: py.script, path: py.path, entry: py.entry, total: py.total },
      {
        name: limits.MAX_NAME_CHARS, script: limits.MAX_SCRIPT_CHARS, path: limits.MAX_PATH_CHARS,
        entry: limits.MAX_ENV_ENTRY_BYTES, total: limits.MAX_ENV_TOTAL_BYTES,
      },
    );
  });

  it('issue 12.5: env and accelerator names are judged alike by the TS patterns and the agent\'s', () => {
    const names = ['A', '_x', 'a1', '1a', 'a-b', 'a.b', 'A100', 'A100-80GB', 'tpu-v2-8', '-x', '.x', 'a b', 'é', 'x'.repeat(64), 'x'.repeat(65), ''];
    const py = agentPython(
      'names = json.load(sys.stdin)\n' +
        'print(json.dumps({"env": [bool(spec._ENV_NAME.match(n)) for n in names], "acc": [bool(spec._ACC_NAME.match(n)) for n in names]}))',
      names,
    ) as { env: boolean[]; acc: boolean[] };
    assert.deepEqual(names.map((n) => limits.ENV_NAME.test(n)), py.env);
    assert.deepEqual(names.map((n) => limits.ACCELERATOR_NAME.test(n)), py.acc);
  });

  it('issue 12.5: on both sides of every limit, the parser accepts exactly the tasks the agent accepts', () => {
    const entry = limits.MAX_ENV_ENTRY_BYTES;
    const cases: Record<string, string> = {
      'name at the limit': `name: ${big(256)}\nrun: x\n`,
      'name over the limit': `name: ${big(257)}\nrun: x\n`,
      // Python counts code points: 256 astral characters are 512 UTF-16 units and still fit.
      'name of 256 astral characters': `name: ${big(256, '😀')}\nrun: x\n`,
      'name of 257 astral characters': `name: ${big(257, '😀')}\nrun: x\n`,
      'name with a NUL': 'name: "a\\0b"\nrun: x\n',
      'run at the limit': `run: ${big(limits.MAX_SCRIPT_CHARS)}\n`,
      'run over the limit': `run: ${big(limits.MAX_SCRIPT_CHARS + 1)}\n`,
      'setup over the limit': `setup: ${big(limits.MAX_SCRIPT_CHARS + 1)}\nrun: x\n`,
      'run with a lone surrogate': 'run: "echo \\ud800"\n',
      // NAME=value: 1 + 1 + value bytes.
      'env entry at the limit': `envs:\n  A: ${big(entry - 2)}\nrun: x\n`,
      'env entry over the limit': `envs:\n  A: ${big(entry - 1)}\nrun: x\n`,
      // é is 2 UTF-8 bytes: bytes, not characters, count.
      'env entry over the limit in bytes, not characters': `envs:\n  A: ${big((entry - 1) / 2, 'é')}\nrun: x\n`,
      'env value with a NUL': 'envs:\n  A: "a\\0b"\nrun: x\n',
      'env name of 257 characters': `envs:\n  ${big(257, 'A')}: v\nrun: x\n`,
      'envs at the total limit': `envs:\n${Array.from({ length: 8 }, (_, i) => `  E${i}: ${big(131072 - 4)}`).join('\n')}\nrun: x\n`,
      'envs over the total limit': `envs:\n${Array.from({ length: 9 }, (_, i) => `  E${i}: ${big(131072 - 4)}`).join('\n')}\nrun: x\n`,
      'secrets count towards the total': `envs:\n${Array.from({ length: 8 }, (_, i) => `  E${i}: ${big(131072 - 4)}`).join('\n')}\nsecrets:\n  S0: ${big(131072 - 4)}\nrun: x\n`,
      'secret with a bad name': 'secrets:\n  a-b: v\nrun: x\n',
      'accelerator name the agent cannot schedule': 'resources:\n  accelerators: "A100!:1"\nrun: x\n',
      'accelerator name of 65 characters': `resources:\n  accelerators: ${big(65, 'A')}:1\nrun: x\n`,
      'accelerator name of 64 characters': `resources:\n  accelerators: ${big(64, 'A')}:1\nrun: x\n`,
      'fractional accelerator': 'resources:\n  accelerators: L4:0.25\nrun: x\n',
    };
    const names = Object.keys(cases);
    const parsed = names.map((n) => submitted(cases[n]));
    // A case the parser refuses is still sent to the agent, built from the document as written.
    const specs = parsed.map((p, i) => (p.errors.length ? unlimitedSpec(cases[names[i]]) : p.spec));
    const agent = agentPython(
      'out = []\nfor s in json.load(sys.stdin):\n    try:\n        spec.validate(s)\n        out.append(None)\n' +
        '    except Exception as e:\n        out.append(str(e))\nprint(json.dumps(out))',
      specs,
    ) as (string | null)[];
    const disagree = names.filter((n, i) => (parsed[i].errors.length === 0) !== (agent[i] === null));
    assert.deepEqual(disagree, [], disagree.map((n) => `${n}: parser ${JSON.stringify(parsed[names.indexOf(n)].errors)} agent ${agent[names.indexOf(n)]}`).join('\n'));
    // And the boundary cases really sit on both sides.
    assert.equal(agent[names.indexOf('name at the limit')], null);
    assert.notEqual(agent[names.indexOf('name over the limit')], null);
    assert.equal(agent[names.indexOf('envs at the total limit')], null);
    assert.notEqual(agent[names.indexOf('envs over the total limit')], null);
  });

  it('issue 12.5: a 300-character name, a 200 KB env and an over-size run are errors at their fields', () => {
    const r = parse(`name: ${big(300)}\nenvs:\n  OK: small\n  BIG: ${big(200 * 1024)}\nrun: |\n  ${big(limits.MAX_SCRIPT_CHARS + 10)}\n`);
    const errors = r.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ path: d.path, line: d.line, col: d.col, hint: !!d.hint }));
    assert.deepEqual(errors, [
      { path: 'name', line: 1, col: 7, hint: true },
      { path: 'envs.BIG', line: 4, col: 8, hint: true },
      { path: 'run', line: 5, col: 6, hint: true },
    ]);
    const text = r.diagnostics.map((d) => d.message).join('\n');
    assert.match(text, /name is 300 characters long; the agent on the node accepts at most 256/);
    assert.match(text, /envs\.BIG is too large: 204,804 bytes as NAME=value.*at most 131,071/);
    assert.match(text, /run is 1,048,587 characters long/);
  });

  it('issue 12.5: values given at launch (--env) count towards the limits', () => {
    const r = parse('envs:\n  A: null\nrun: x\n', { A: big(200 * 1024) });
    const e = r.diagnostics.find((d) => d.severity === 'error');
    assert.ok(e, 'no error');
    assert.equal(e.path, 'envs.A');
    assert.equal(e.line, 2);
    assert.match(e.message, /too large/);
  });
});

/** The spec a task would produce with the limit checks left out (to ask the agent about it). */
function unlimitedSpec(yaml: string): unknown {
  const r = parse(yaml);
  const task = r.tasks[0];
  assert.ok(task, `no task parsed from a limit case: ${r.diagnostics.map((d) => d.message).join('; ')}`);
  const { envs } = resolveEnvs(task, {});
  for (const [k, v] of Object.entries(task.secrets)) if (v !== null) envs[k] = v;
  // Fields the parser dropped for an error are taken from the document as written.
  const raw = task.raw as Record<string, unknown>;
  const spec = jobSpecOf(task, envs, { user: 'tester', workdir: '/home/tester/sky_workdir', withSetup: true }) as unknown as Record<string, unknown>;
  for (const k of ['name', 'setup', 'run']) if (typeof raw[k] === 'string') spec[k] = raw[k];
  if (raw.envs && typeof raw.envs === 'object') spec.envs = { ...(raw.envs as object), ...(isObj(raw.secrets) ? raw.secrets : {}) };
  else if (isObj(raw.secrets)) spec.envs = { ...raw.secrets };
  const acc = (raw.resources as Record<string, unknown> | undefined)?.accelerators;
  if (typeof acc === 'string') {
    const [name, count] = acc.split(':');
    spec.resources = { accelerators: { [name]: Number(count ?? 1) } };
  }
  return spec;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
