import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  ensureSshInclude, hasInclude, removeClusterSshConfig, sshAccessOf, sshCommandLine, sshConfigText,
  writeClusterSshConfig, type SshAccess,
} from '../../../src/core/access';
import type { ClusterRecord } from '../../../src/core/state';

const row = (over: Partial<ClusterRecord>): ClusterRecord => ({
  name: 'train', uid: 'u1', provider: 'ssh', region: 'p', zone: null, status: 'UP', resources: null, num_nodes: 1,
  head_address: '10.0.0.5', ssh_user: 'ubuntu', ssh_port: 22, ssh_key_path: null,
  handle: JSON.stringify({ hosts: [{ address: '10.0.0.5', port: 2222, user: 'ubuntu', identityFile: '/keys/id 1' }], workdir: '/home/ubuntu/sky_workdir' }),
  launched_at: 0, updated_at: 0, last_error: null, autostop_minutes: null, autostop_down: 0, flags: null,
  created_by_user: null, created_by_machine: null, account: null, ...over,
});

describe('access: ssh command line and config text', () => {
  it('takes the head host of an ssh cluster; a local cluster is a usage error that says why', () => {
    const a = sshAccessOf(row({}), ['/k/known']);
    assert.equal(a.alias, 'skydeck-train');
    assert.equal(a.head.port, 2222);
    assert.equal(a.workdir, '/home/ubuntu/sky_workdir');
    assert.throws(() => sshAccessOf(row({ provider: 'local' }), []), /runs on this machine/);
  });

  it('a Kubernetes cluster has no SSH host: Remote-SSH and Copy SSH Command say why and what to use instead', () => {
    const kube = row({
      provider: 'kubernetes', handle: JSON.stringify({ hosts: [{ address: '10.1.2.3', port: 22, user: 'root' }], workdir: '/root/sky_workdir', base: '/root/.skydeck',
        kube: { context: 'kit', namespace: 'ml', container: 'node', pods: ['skydeck-u1-0'] } }),
    });
    assert.throws(() => sshAccessOf(kube, []), (e: Error) => {
      assert.match(e.message, /train runs on Kubernetes, whose pods run no SSH server/);
      assert.match(e.message, /Open SSH Terminal/);
      assert.ok(e.message.includes('"kubectl --context kit exec -it skydeck-u1-0 -n ml -c node -- bash"'), e.message);
      return true;
    });
  });

  it('quotes every part of the command line for a POSIX shell and pins strict host checking', () => {
    const line = sshCommandLine(sshAccessOf(row({}), ['/home/me/.skydeck/known_hosts', '/home/me/.ssh/known_hosts']));
    assert.equal(
      line,
      "ssh -p 2222 -i '/keys/id 1' -o 'IdentitiesOnly=yes' -o 'UserKnownHostsFile=/home/me/.skydeck/known_hosts /home/me/.ssh/known_hosts' -o 'StrictHostKeyChecking=yes' ubuntu@10.0.0.5",
    );
  });

  it('writes config blocks with quoted paths, %-escapes and a jump-host block', () => {
    const a: SshAccess = {
      cluster: 'train', alias: 'skydeck-train', workdir: '', knownHostsFiles: ['/a b/100%/known'],
      head: { address: '10.0.0.5', port: 22, user: 'u', proxyJump: { address: 'bastion', port: 2200, user: 'j', identityFile: '/k' } },
    };
    const text = sshConfigText(a, 'note');
    assert.match(text, /^# note\nHost skydeck-train-jump\n {2}HostName bastion\n {2}Port 2200\n {2}User j\n {2}IdentityFile \/k\n/);
    assert.ok(text.includes('  UserKnownHostsFile "/a b/100%%/known"\n'));
    assert.ok(text.endsWith('  StrictHostKeyChecking yes\n  ProxyJump skydeck-train-jump\n'));
  });

  it('refuses values ssh_config cannot hold', () => {
    const a: SshAccess = { cluster: 'x', alias: 'skydeck-x', workdir: '', knownHostsFiles: ['/k"nown'], head: { address: 'h', port: 22, user: 'u' } };
    assert.throws(() => sshConfigText(a, 'n'), /quote or a newline/);
  });
});

describe('access: the managed ssh config files', () => {
  let tmp: string;
  let paths: { dir: string; userConfig: string };
  const access: SshAccess = { cluster: 'train', alias: 'skydeck-train', workdir: '', knownHostsFiles: ['/k'], head: { address: 'h', port: 22, user: 'u' } };
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-sshcfg-'));
    paths = { dir: path.join(tmp, 'skydeck', 'config.d'), userConfig: path.join(tmp, 'dot ssh', 'config') };
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('creates ~/.ssh/config (0600) with the Include when there is none, and adds it only once', () => {
    assert.equal(ensureSshInclude(paths), 'added');
    const text = fs.readFileSync(paths.userConfig, 'utf8');
    assert.ok(text.includes(`Include ${path.join(paths.dir, '*.conf')}\n`), text);
    assert.equal(fs.statSync(paths.userConfig).mode & 0o777, 0o600);
    assert.equal(ensureSshInclude(paths), 'present');
    assert.equal(fs.readFileSync(paths.userConfig, 'utf8'), text);
  });

  it('puts the Include first and keeps the user content and permissions byte for byte', () => {
    fs.mkdirSync(path.dirname(paths.userConfig), { recursive: true });
    const mine = 'Host work\n  HostName w.example\r\n  User me\n# trailing, no newline';
    fs.writeFileSync(paths.userConfig, mine, { mode: 0o644 });
    fs.chmodSync(paths.userConfig, 0o644);
    assert.equal(ensureSshInclude(paths), 'added');
    const text = fs.readFileSync(paths.userConfig, 'utf8');
    assert.ok(text.endsWith(`\n\n${mine}`));
    assert.ok(text.indexOf('Include') < text.indexOf('Host work'));
    assert.equal(fs.statSync(paths.userConfig).mode & 0o777, 0o644);
    assert.ok(hasInclude(text, paths));
  });

  it('quotes an include path with spaces, and recognises it again', () => {
    paths.dir = path.join(tmp, 'my skydeck', 'config.d');
    ensureSshInclude(paths);
    const text = fs.readFileSync(paths.userConfig, 'utf8');
    assert.ok(text.includes(`Include "${path.join(paths.dir, '*.conf')}"`));
    assert.equal(ensureSshInclude(paths), 'present');
  });

  it('one file per cluster, private, replaced on rewrite and removed on down', () => {
    const f = writeClusterSshConfig(paths, access, '/ws');
    assert.equal(path.basename(f), 'skydeck-train.conf');
    assert.equal(fs.statSync(f).mode & 0o777, 0o600);
    writeClusterSshConfig(paths, { ...access, head: { ...access.head, address: 'h2' } }, '/ws');
    assert.match(fs.readFileSync(f, 'utf8'), /HostName h2\n/);
    removeClusterSshConfig(paths, 'train');
    assert.equal(fs.existsSync(f), false);
  });
});

describe('access: a container cluster (image_id: docker:…)', () => {
  const ctrRow = row({ handle: JSON.stringify({
    hosts: [{ address: '10.0.0.5', port: 2222, user: 'ubuntu' }], workdir: '~/sky_workdir',
    container: { runtime: 'podman', name: 'skydeck-u-1', image: 'docker.io/library/ubuntu:22.04' },
  }) });

  it('the node keeps its alias; a second, labelled alias logs in inside the container, in the workdir', () => {
    const a = sshAccessOf(ctrRow, ['/k/known']);
    assert.deepEqual(a.container, { runtime: 'podman', name: 'skydeck-u-1' });
    const text = sshConfigText(a, 'note');
    const [node, inside] = text.split('\n\n');
    assert.match(node, /^# note\nHost skydeck-train\n/);
    assert.doesNotMatch(node, /RemoteCommand/, 'Remote-SSH windows use the node alias, which runs no command');
    assert.match(inside, /^# inside container skydeck-u-1 \(ssh skydeck-train-container\); skydeck-train is the node, outside it\nHost skydeck-train-container\n {2}HostName 10\.0\.0\.5\n/);
    assert.ok(inside.includes('  RequestTTY yes\n'));
    assert.ok(inside.endsWith(`  RemoteCommand exec podman exec -it skydeck-u-1 /bin/sh -c 'cd "$HOME"/sky_workdir 2>/dev/null; command -v bash >/dev/null && exec bash -l; exec sh -l'\n`), inside);
    // OpenSSH reads it back as written (ssh -G prints the effective settings).
    const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-ctr-cfg-')), 'config');
    fs.writeFileSync(f, text);
    const g = execFileSync('ssh', ['-G', '-F', f, 'skydeck-train-container'], { encoding: 'utf8' });
    assert.ok(g.includes(`remotecommand exec podman exec -it skydeck-u-1 /bin/sh -c 'cd "$HOME"/sky_workdir 2>/dev/null; command -v bash >/dev/null && exec bash -l; exec sh -l'\n`), g);
    assert.match(g, /^requesttty (yes|true)$/m);
    assert.doesNotMatch(execFileSync('ssh', ['-G', '-F', f, 'skydeck-train'], { encoding: 'utf8' }), /^remotecommand/m);
  });

  it('a workdir with % is escaped for ssh_config, and one with a newline is refused', () => {
    const a = { ...sshAccessOf(ctrRow, ['/k']), workdir: '/w/100%' };
    assert.ok(sshConfigText(a, 'n').includes('cd /w/100%% 2>'));
    assert.throws(() => sshConfigText({ ...a, workdir: '/w/a\nb' }, 'n'), /newline/);
  });
});
