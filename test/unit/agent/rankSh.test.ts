import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AGENT, markerPrefix, PY } from './helpers';

// The worker side of a gang rank (agent/skydeck_agent_lib/rank_sh.py) run with the real sh, as
// the worker's sshd would run it: argv and stdin exactly as the gang driver builds them.
const LIB = path.dirname(AGENT);

function runRank(opts: { vars: Record<string, string>; script: string; cwd: string | null; headHome: string; home: string; base: string; phase?: string }) {
  const build = [
    'import json, sys',
    `sys.path.insert(0, ${JSON.stringify(LIB)})`,
    'from skydeck_agent_lib import rank_sh',
    'a = json.loads(sys.stdin.read())',
    "w = {'base': a['base'], 'python': sys.executable, 'agent': a['agent']}",
    "sys.stdout.write(json.dumps({'argv': rank_sh.argv(w, 7, 2, a['phase']), 'stdin': rank_sh.payload(a['vars'], a['script'], a['cwd'], a['headHome'], '0027').decode('latin-1')}))",
  ].join('\n');
  const made = spawnSync(PY, ['-c', build], { input: JSON.stringify({ ...opts, agent: AGENT, phase: opts.phase ?? 'run' }) });
  assert.equal(made.status, 0, made.stderr.toString());
  const { argv, stdin } = JSON.parse(made.stdout.toString()) as { argv: string[]; stdin: string };
  // One line for the worker's login shell, whatever it is (csh rejects a newline in quotes).
  assert.ok(argv.every((a) => !a.includes('\n')), 'the remote command has no newline');
  const r = spawnSync(argv[0], argv.slice(1), { input: Buffer.from(stdin, 'latin1'), env: { PATH: process.env.PATH, HOME: opts.home } });
  return { code: r.status, out: r.stdout.toString(), err: r.stderr.toString() };
}

describe('agent: a gang rank on a worker, in sh (no Python start there)', () => {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-ranksh-'));
    fs.mkdirSync(path.join(dir, 'base'));
    fs.mkdirSync(path.join(dir, 'home', 'proj'), { recursive: true });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('hands hostile values over byte for byte and evaluates none of them', () => {
    const canary = path.join(dir, 'pwned');
    const hostile = `it's $(touch ${canary}) \`touch ${canary}\` "q" \\ $HOME\nline2\n\n`;
    const r = runRank({
      vars: { A: hostile, IFS: ':', SKYDECK_NODE_RANK: '2', 'not-a-name': 'x' },
      script: 'printf "%s|" "$A" "$SKYDECK_NODE_RANK" "${not_a_name-unset}" "$PWD" "$SKYDECK_JOB_MARKER" "$(umask)"\nexit 7\n',
      cwd: '/head/home/proj', headHome: '/head/home/', home: path.join(dir, 'home'), base: path.join(dir, 'base'),
    });
    assert.equal(r.code, 7, r.err);
    const marker = `${markerPrefix(path.join(dir, 'base'))}:7`;
    assert.equal(r.out, `${hostile}|2|unset|${path.join(dir, 'home', 'proj')}|${marker}|0027|`);
    assert.equal(fs.existsSync(canary), false);
    const exit = path.join(dir, 'base', 'jobs', '7', 'rank-2-run.exit');
    assert.equal(fs.readFileSync(exit, 'utf8').trim(), '7');
    assert.equal(fs.statSync(exit).mode & 0o777, 0o600);
  });

  it('a workdir missing on this node fails the rank with code 1 and says so', () => {
    const r = runRank({ vars: {}, script: 'echo ran\n', cwd: '/elsewhere/x', headHome: '/head/home', home: path.join(dir, 'home'), base: path.join(dir, 'base'), phase: 'setup' });
    assert.equal(r.code, 1);
    assert.match(r.out, /the workdir \/elsewhere\/x does not exist on this node/);
    assert.doesNotMatch(r.out, /^ran$/m);
    assert.equal(fs.readFileSync(path.join(dir, 'base', 'jobs', '7', 'rank-2-setup.exit'), 'utf8').trim(), '1');
  });

  it('a truncated payload (the connection broke mid-way) runs nothing', () => {
    const build = `import sys; sys.path.insert(0, ${JSON.stringify(LIB)})\nfrom skydeck_agent_lib import rank_sh\nsys.stdout.buffer.write(rank_sh.payload({'A': 'x'}, 'echo ran', None, None, None)[:9])`;
    const part = spawnSync(PY, ['-c', build]).stdout;
    assert.equal(part.length, 9);
    const argvOut = spawnSync(PY, ['-c', `import sys, json; sys.path.insert(0, ${JSON.stringify(LIB)})\nfrom skydeck_agent_lib import rank_sh\nprint(json.dumps(rank_sh.argv({'base': ${JSON.stringify(path.join(dir, 'base'))}, 'python': 'python3', 'agent': 'a'}, 7, 1, 'run')))`]).stdout.toString();
    const argv = JSON.parse(argvOut) as string[];
    for (const input of [part, Buffer.alloc(0), Buffer.from("_sd_v_A='x'\n_sd_vars='A'\n")]) {
      const r = spawnSync(argv[0], argv.slice(1), { input, env: { PATH: process.env.PATH, HOME: path.join(dir, 'home') } });
      assert.notEqual(r.status, 0, `ran with ${JSON.stringify(input.toString())}`);
      assert.doesNotMatch(r.stdout.toString(), /^ran$/m);
    }
  });
});
