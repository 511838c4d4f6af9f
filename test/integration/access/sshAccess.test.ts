import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HostSpec } from '../../../src/core/clouds/hostSpec';
import { ensureSshInclude, sshArgv, sshCommandLine, writeClusterSshConfig, type SshAccess } from '../../../src/core/access';
import { setup, type Env } from '../transport/helpers';
import type { TestHost } from '../../hosts';

/** Runs OpenSSH's client; never reads root's own ~/.ssh/config unless -F says otherwise. */
function run(file: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 20_000 }, (e, out, err) =>
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, out, err }));
  });
}

describe('access: the ssh command and Remote-SSH config work with OpenSSH itself', function () {
  this.timeout(60_000);
  let env: Env;
  const spec = (h: TestHost, jump?: HostSpec): HostSpec => ({
    address: h.address, port: h.port, user: h.user, identityFile: env.clientKeyPath, ...(jump ? { proxyJump: jump } : {}),
  });
  const access = (head: HostSpec, known = path.join(env.tmp, 'known_hosts')): SshAccess => ({
    cluster: 'train', alias: 'skydeck-train', head, knownHostsFiles: [known], workdir: '',
  });

  before(async () => {
    env = await setup(2);
    // Skydeck's own connection accepts (and records) both host keys, as a launch would.
    for (const h of env.hosts) await env.transport(h).exec(['true']);
  });
  after(async () => { await env?.teardown(); });

  it('the copied command logs in, verifying the host key Skydeck recorded', async () => {
    const argv = sshArgv(access(spec(env.hosts[0])));
    const r = await run(argv[0], ['-F', '/dev/null', '-o', 'BatchMode=yes', ...argv.slice(1), 'id -un']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out.trim(), env.hosts[0].user);
    // The same line pasted into a shell.
    const line = sshCommandLine(access(spec(env.hosts[0])));
    const s = await run('/bin/sh', ['-c', `${line.replace(/^ssh /, 'ssh -F /dev/null -o BatchMode=yes ')} echo pasted`]);
    assert.equal(s.out.trim(), 'pasted', s.err);
  });

  it('refuses a host whose key Skydeck never accepted (strict checking)', async () => {
    const empty = path.join(env.tmp, 'empty_known_hosts');
    fs.writeFileSync(empty, '');
    const argv = sshArgv(access(spec(env.hosts[0]), empty));
    const r = await run(argv[0], ['-F', '/dev/null', '-o', 'BatchMode=yes', ...argv.slice(1), 'true']);
    assert.notEqual(r.code, 0);
    assert.match(r.err, /host key verification failed|No .* host key is known/i);
  });

  it('through a jump host: both the command line and the config reach the target', async () => {
    const [jump, target] = env.hosts;
    const a = access(spec(target, spec(jump)));
    const argv = sshArgv(a);
    const r = await run(argv[0], ['-F', '/dev/null', '-o', 'BatchMode=yes', ...argv.slice(1), 'echo "$SSH_CONNECTION"']);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out.trim().split(' ')[2], target.address);

    const paths = { dir: path.join(env.tmp, 'config.d'), userConfig: path.join(env.tmp, 'dot-ssh', 'config') };
    writeClusterSshConfig(paths, a, '/ws');
    assert.equal(ensureSshInclude(paths), 'added');
    const c = await run('ssh', ['-F', paths.userConfig, '-o', 'BatchMode=yes', 'skydeck-train', 'echo "$SSH_CONNECTION"']);
    assert.equal(c.code, 0, c.err);
    assert.equal(c.out.trim().split(' ')[2], target.address);
  });
});

describe('transport/ssh: interactive shell on a pty', function () {
  this.timeout(60_000);
  let env: Env;
  before(async () => { env = await setup(1); });
  after(async () => { await env?.teardown(); });

  async function session(cwd: string | undefined, input: string, resize?: [number, number]): Promise<{ out: string; code: number | null }> {
    const shell = await env.transport(env.hosts[0]).openShell({ cols: 80, rows: 24, cwd });
    const chunks: Buffer[] = [];
    shell.onData((b) => chunks.push(b));
    const closed = new Promise<number | null>((r) => shell.onClose(r));
    if (resize) shell.resize(...resize);
    shell.write(input);
    const code = await closed;
    return { out: Buffer.concat(chunks).toString(), code };
  }

  it('runs a login shell in the directory asked for, with the size asked for, and reports its exit', async () => {
    const dir = "it's $(touch pwned) dir";
    await env.hosts[0].exec(`mkdir -p "$HOME/${dir.replace(/\$/g, '\\$')}"`);
    const r = await session(`~/${dir}`, 'stty size; pwd; exit 7\n');
    assert.equal(r.code, 7);
    assert.match(r.out, /24 80/);
    assert.ok(r.out.includes(`/${dir}`), r.out);
    assert.equal((await env.hosts[0].exec('find "$HOME" -name pwned')).stdout, '', 'the directory name was run');
  });

  it('follows a resize, and starts at home when the directory is missing', async () => {
    const r = await session('~/no/such/dir', 'stty size; pwd; exit\n', [132, 40]);
    assert.equal(r.code, 0);
    assert.match(r.out, /40 132/);
    const home = (await env.hosts[0].exec('printf %s "$HOME"')).stdout;
    assert.ok(r.out.includes(home), r.out);
  });
});
