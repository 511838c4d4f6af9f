import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildId, checkCliRequest, cliRequestOf } from '../../../../src/core/transport/holder/cliRequest';

const good = () => ({
  t: 'cli', argv: ['exec', 'dev', "echo 'a b' $(x)"], cwd: '/tmp', env: { HOME: '/root', X: 'a=b' }, umask: 0o22,
  tty: { stdin: true, stdout: false, stderr: false }, build: '1:2:3:4',
});

describe('transport/holder: the CLI run request', () => {
  it('takes a well-formed request as it is', () => {
    const r = checkCliRequest(good());
    assert.notEqual(typeof r, 'string', String(r));
  });

  it('a warm hint is checked as a run is, and neither is taken for the other', () => {
    assert.notEqual(typeof checkCliRequest({ ...good(), t: 'warm' }, 'warm'), 'string');
    assert.match(checkCliRequest({ ...good(), t: 'warm' }) as string, /not a cli request/);
    assert.match(checkCliRequest(good(), 'warm') as string, /not a warm request/);
    assert.match(checkCliRequest({ ...good(), t: 'warm', cwd: 'x' }, 'warm') as string, /^cwd/);
    const own = cliRequestOf('warm', ['exec', 'b', 'x'], '1:2:3:4');
    assert.equal(own.cwd, process.cwd());
    assert.equal(own.env.PATH, process.env.PATH);
    assert.notEqual(typeof checkCliRequest(own, 'warm'), 'string');
  });

  it('refuses every malformed field, naming it', () => {
    const bad: Array<[string, Record<string, unknown>]> = [
      ['argv', { argv: [] }], ['argv', { argv: ['exec', 3] }], ['argv', { argv: ['a\0b'] }],
      ['cwd', { cwd: 'relative' }], ['cwd', { cwd: 7 }],
      ['env', { env: null }], ['env', { env: ['A=1'] }], ['env', { env: { 'A=B': 'x' } }], ['env', { env: { A: 1 } }], ['env', { env: { A: 'x\0y' } }],
      ['umask', { umask: -1 }], ['umask', { umask: 0o1000 }], ['umask', { umask: '022' }],
      ['tty', { tty: { stdin: true } }], ['build', { build: 5 }],
    ];
    for (const [field, patch] of bad) {
      const r = checkCliRequest({ ...good(), ...patch });
      assert.equal(typeof r, 'string', JSON.stringify(patch));
      assert.match(r as string, new RegExp(`^${field}`));
    }
    assert.equal(typeof checkCliRequest({ t: 'exec' }), 'string');
  });

  it('names a build by its file: rewriting the bundle changes it', () => {
    const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-build-')), 'cli-main.js');
    fs.writeFileSync(f, 'a');
    const a = buildId(f);
    assert.equal(buildId(f), a);
    fs.writeFileSync(f, 'bb');
    assert.notEqual(buildId(f), a);
    fs.rmSync(path.dirname(f), { recursive: true });
  });
});
