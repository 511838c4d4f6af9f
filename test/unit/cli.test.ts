import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../src/cli/main';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), outBytes: (d) => (out += d.toString()), err: (t) => (err += t) });
  return { code, out, err };
}

function yamlFile(text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cli-'));
  const f = path.join(dir, 'task.yaml');
  fs.writeFileSync(f, text);
  return f;
}

describe('cli', () => {
  it('validate: a good file exits 0', async () => {
    const r = await cli('validate', yamlFile('name: ok\nresources:\n  cloud: local\nrun: echo hi\n'));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /1 file valid/);
  });

  it('validate: errors print file:line:col and exit 2', async () => {
    const f = yamlFile('name: bad\nresources:\n  cpus: -3\nrun: echo hi\n');
    const r = await cli('validate', f);
    assert.equal(r.code, 2);
    assert.ok(r.err.startsWith(`${f}:3:9: error`), r.err);
  });

  it('validate: a missing file is an error naming the file', async () => {
    const r = await cli('validate', '/nonexistent/task.yaml');
    assert.notEqual(r.code, 0);
    assert.match(r.err + r.out, /\/nonexistent\/task\.yaml/);
  });

  it('a cloud with no configuration fails at once, says what to fix, and never reaches the network', async () => {
    // No region, no credentials, no metadata service: the SDK must stop before any request.
    const saved = { ...process.env };
    for (const k of Object.keys(process.env)) if (k.startsWith('AWS_')) delete process.env[k];
    Object.assign(process.env, {
      SKYDECK_WORKSPACE: fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cli-ws-')),
      HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cli-home-')),
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    try {
      const r = await cli('launch', yamlFile('resources:\n  cloud: aws\nrun: echo hi\n'), '-c', 'x');
      assert.equal(r.code, 1, r.err);
      // The account is asked first (issue 12.2: the intent records it); no credentials stops there.
      assert.match(r.err, /cannot tell which aws account the credentials point at \(auth: .*Could not load credentials.*aws configure/);
      const s = await cli('stop', 'nope');
      assert.equal(s.code, 2);
      assert.match(s.err, /no cluster named "nope"/);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it('unknown commands and missing arguments are usage errors', async () => {
    assert.equal((await cli('frobnicate')).code, 2);
    const r = await cli('validate');
    assert.equal(r.code, 2);
    assert.match(r.err, /needs at least one task YAML file/);
  });

  describe('issue 12.9: argument errors are usage errors (exit 2) with a clear message', () => {
    let saved: string | undefined;
    before(() => {
      saved = process.env.SKYDECK_WORKSPACE;
      process.env.SKYDECK_WORKSPACE = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-cli-args-'));
    });
    after(() => {
      if (saved === undefined) delete process.env.SKYDECK_WORKSPACE;
      else process.env.SKYDECK_WORKSPACE = saved;
    });

    const cases: [string[], RegExp][] = [
      [['cancel', 'c', '99999999999999999999'], /job id 99999999999999999999 is out of range \(1-9007199254740991\)/],
      [['cancel', 'c', '0'], /job id 0 is out of range/],
      [['logs', 'c', '9007199254740993'], /job id 9007199254740993 is out of range/],
      [['logs', 'c', '12abc'], /job id "12abc" is not a whole number/],
      [['cancel', 'c', '1', '--grace', '1e9'], /--grace "1e9" is not a number of seconds \(0-86400/],
      [['cancel', 'c', '1', '--grace', '90000'], /--grace 90000 is out of range \(0-86400 seconds\)/],
      [['down', 'c', '-y', '--grace', '-1'], /--grace "-1" is not a number of seconds/],
      [['logs', 'c', '--rank', '1000'], /--rank 1000 is out of range \(0-999\)/],
      [['launch', 't.yaml', '--idle-minutes', '99999999999'], /--idle-minutes 99999999999 is out of range/],
      [['status', 'extra', 'junk'], /no cluster named "extra", "junk"/],
      [['leaks', 'junk'], /leaks takes no arguments/],
      [['queue', 'c', 'extra'], /no cluster named "c"/],
      [['check', 'nocloud'], /unknown cloud "nocloud"/],
    ];
    for (const [argv, message] of cases) {
      it(`skydeck ${argv.join(' ')}`, async () => {
        const r = await cli(...argv);
        assert.equal(r.code, 2, r.err);
        assert.match(r.err, message);
        assert.doesNotMatch(r.err, /OverflowError|Traceback/);
      });
    }

    it('the largest job id is accepted as exactly itself (the failure is then about the cluster)', async () => {
      const r = await cli('logs', 'nope', '9007199254740991', '--no-follow');
      assert.equal(r.code, 2);
      assert.match(r.err, /no cluster named "nope"/);
    });

    it('an unknown cluster exits 2 from every command, alone or among others', async () => {
      for (const argv of [['queue', 'nope'], ['logs', 'nope'], ['cancel', 'nope', '1'], ['exec', 'nope', 't.yaml'], ['down', 'nope', '-y'],
        ['stop', 'nope'], ['start', 'nope'], ['down', 'nope', 'other', '-y'], ['stop', 'nope', 'other'], ['start', 'nope', 'other']]) {
        const r = await cli(...argv);
        assert.equal(r.code, 2, `${argv.join(' ')}: ${r.err}`);
        assert.match(r.err, /no cluster named "nope"/, argv.join(' '));
      }
    });
  });

  it('prints help and version', async () => {
    assert.match((await cli('--help')).out, /Usage: skydeck <command>/);
    assert.match((await cli('--version')).out, /^\d+\.\d+\.\d+\n$/);
  });
});
