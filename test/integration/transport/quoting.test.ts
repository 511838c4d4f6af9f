import assert from 'node:assert/strict';
import { LocalTransport, buildExecCommand, shellQuote, type SshTransport, type Transport } from '../../../src/core/transport';
import { prng, setup, type Env } from './helpers';

const PIECES = [
  "'", '"', '`', '$(', ')', '${', '}', '$', '\\', '\n', '\r', '\t', ' ', '  ', '*', '?', '[', ']', '~', '#', '!',
  ';', '&', '&&', '|', '||', '<', '>', '>>', '=', '-', '--', '%', '^', '{', '}', '(', ')', ',', '@',
  '$HOME', '$(id)', '`id`', "'\\''", '"$@"', '$1', '\\n', 'é', 'ß', '日本語', '🚀', '\u200b', '\u00a0', '\ufeff',
  '\x01', '\x1b[31m', '\x7f', 'a', 'Z', '0', '-n', '-e', 'echo', '/', '.', '..', '=x',
];

function randomString(rand: () => number): string {
  const n = Math.floor(rand() * 12);
  let s = '';
  for (let i = 0; i < n; i++) {
    s += rand() < 0.75
      ? PIECES[Math.floor(rand() * PIECES.length)]
      : String.fromCodePoint(0x20 + Math.floor(rand() * 0x5f)); // printable ASCII
  }
  return s;
}

/** Runs argv through the transport and gets back each argument, NUL-separated, byte for byte. */
async function echoArgs(t: Transport, args: string[]): Promise<Buffer> {
  const r = await t.exec(['sh', '-c', 'for a do printf "%s\\0" "$a"; done', 'sh', ...args]);
  assert.equal(r.code, 0, r.stderr.toString());
  return r.stdout;
}

function expected(args: string[]): Buffer {
  return Buffer.concat(args.map((a) => Buffer.from(`${a}\0`, 'utf8')));
}

describe('transport: shell quoting', function () {
  this.timeout(90_000);
  let env: Env;
  let t: SshTransport;
  const SEED = Number(process.env.SKYDECK_FUZZ_SEED ?? 20240601);

  before(async () => {
    env = await setup(1);
    t = env.transport(env.hosts[0]);
  });
  after(async () => { await env?.teardown(); });

  it('quotes known hard cases', () => {
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote('plain-word_1.2/x@y:z'), 'plain-word_1.2/x@y:z');
    assert.equal(shellQuote("it's"), "'it'\\''s'");
    assert.equal(shellQuote('a=b'), "'a=b'"); // never read as an assignment
    assert.equal(shellQuote('~'), "'~'");
    assert.throws(() => shellQuote('a\0b'), /NUL/);
    assert.equal(buildExecCommand(['echo', 'x y'], { cwd: '~/d i r', env: { A: '$x' } }), "cd ~/'d i r' && export A='$x' && echo 'x y'");
  });

  it(`2,000 random argv strings arrive byte-exact over SSH (seed ${SEED})`, async () => {
    const rand = prng(SEED);
    const all = Array.from({ length: 2000 }, () => randomString(rand));
    all.push('', '', "'", '\n', '$(touch /tmp/skydeck-pwned)', '`touch /tmp/skydeck-pwned`');
    const batches: string[][] = [];
    for (let i = 0; i < all.length; i += 100) batches.push(all.slice(i, i + 100));
    const outs = await Promise.all(batches.map((b) => echoArgs(t, b)));
    batches.forEach((b, i) => {
      if (!outs[i].equals(expected(b))) {
        const got = outs[i].toString('utf8').split('\0');
        const j = b.findIndex((a, k) => got[k] !== a);
        assert.fail(`batch ${i}, argument ${j}: sent ${JSON.stringify(b[j])}, remote saw ${JSON.stringify(got[j])}`);
      }
    });
    assert.equal((await env.hosts[0].exec('test -e /tmp/skydeck-pwned')).code, 1, 'a quoted string was executed');
  });

  it('2,000 random env values arrive byte-exact over SSH', async () => {
    const rand = prng(SEED + 1);
    const values = Array.from({ length: 2000 }, () => randomString(rand));
    const batches: string[][] = [];
    for (let i = 0; i < values.length; i += 200) batches.push(values.slice(i, i + 200));
    await Promise.all(batches.map(async (b) => {
      const envVars = Object.fromEntries(b.map((v, i) => [`SKYDECK_FUZZ_${i}`, v]));
      const script = 'i=0; while [ $i -lt "$1" ]; do eval "printf \'%s\\0\' \\"\\$SKYDECK_FUZZ_$i\\""; i=$((i+1)); done';
      const r = await t.exec(['sh', '-c', script, 'sh', String(b.length)], { env: envVars });
      assert.equal(r.code, 0, r.stderr.toString());
      assert.ok(r.stdout.equals(expected(b)), 'env values differ');
    }));
  });

  it('execShell scripts and cwd with hard characters', async () => {
    const rand = prng(SEED + 2);
    const strs = Array.from({ length: 200 }, () => randomString(rand));
    const script = strs.map((s) => `printf '%s\\0' ${shellQuote(s)}`).join('\n');
    const r = await t.execShell(script);
    assert.ok(r.stdout.equals(expected(strs)));
    const weird = `d'ir "$(x)" \`y\` 日本`;
    await t.exec(['mkdir', '-p', weird]);
    const pwd = await t.exec(['pwd'], { cwd: `~/${weird}` });
    assert.equal(pwd.stdout.toString(), `${env.hosts[0].home}/${weird}\n`);
  });

  it('the local transport passes the same 2,000 strings unchanged', async () => {
    const local = new LocalTransport();
    const rand = prng(SEED);
    const all = Array.from({ length: 2000 }, () => randomString(rand));
    const out = await echoArgs(local, all);
    assert.ok(out.equals(expected(all)));
    const envVars = Object.fromEntries(all.slice(0, 300).map((v, i) => [`SKYDECK_FUZZ_${i}`, v]));
    const r = await local.exec(['sh', '-c', 'i=0; while [ $i -lt 300 ]; do eval "printf \'%s\\0\' \\"\\$SKYDECK_FUZZ_$i\\""; i=$((i+1)); done'], { env: envVars });
    assert.ok(r.stdout.equals(expected(all.slice(0, 300))));
  });
});
