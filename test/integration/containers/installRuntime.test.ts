// Issue 18, cloud nodes: the bootstrap installs a container runtime with the node's package
// manager when the image has none (containers/installRuntime.ts). Run against a real sshd test
// host whose PATH holds FAKE apt-get / dnf / sudo (they record their argv and "install" a stub
// runtime): nothing reaches the network, and the failures are provoked exactly.
import assert from 'node:assert/strict';
import { installRuntime } from '../../../src/core/containers/installRuntime';
import { ContainerError } from '../../../src/core/containers/provision';
import type { Transport } from '../../../src/core/transport';
import { sshFixture, type SshFixture } from '../ops/sshFixture';
import type { TestOps } from '../ops/helpers';
import { skipOrFailWithout } from '../../support/ci';

// A package manager stand-in: logs its argv; `install P` fails when fail-P exists beside it,
// else puts an executable for P's runtime (docker.io → docker) beside itself.
const FAKE_PM = `#!/bin/sh
d=$(dirname "$0")
echo "$(basename "$0") $*" >> "$d/pm.log"
for a; do last=$a; done
case " $* " in *" update "*) echo "Reading package lists... Done"; exit 0 ;; esac
if [ -e "$d/fail-$last" ]; then echo "E: Unable to locate package $last" >&2; exit 100; fi
case $last in docker.io) bin=docker ;; *) bin=$last ;; esac
printf '#!/bin/sh\\necho fake\\n' > "$d/$bin"; chmod +x "$d/$bin"
echo "Setting up $last (fake) ..."
`;
const FAKE_SUDO = '#!/bin/sh\n[ "$1" = -n ] && shift\nexec "$@"\n';

describe('container runtime install on a cloud node (fake package managers on a real sshd host)', function () {
  this.timeout(120_000);
  let fx: SshFixture;
  let ops: TestOps;
  let n = 0;
  before(async function () {
    try {
      fx = await sshFixture(1);
    } catch (e) {
      skipOrFailWithout(this, 'sshd test hosts', (e as Error).message);
    }
    ops = await fx.ops('known');
  });
  after(async () => {
    await fx?.cleanup(ops);
    await fx?.env.stop();
  });
  const h = () => fx.env.hosts[0];

  /** A directory that is the node's whole PATH: the basic tools plus the given fakes. */
  async function node(fakes: { [name: string]: string }, failing: string[] = []): Promise<{ t: Transport; dir: string }> {
    const dir = `${h().home}/fb${++n}`;
    const tools = 'sh uname id env true tail cat chmod dirname basename';
    let script = `set -e; mkdir -p '${dir}'; cd '${dir}'; for t in ${tools}; do for p in "/usr/bin/$t" "/bin/$t"; do if [ -x "$p" ]; then ln -s "$p" "$t"; break; fi; done; [ -e "$t" ]; done`;
    for (const [name, body] of Object.entries(fakes)) script += `; printf '%s' '${body.replace(/'/g, `'"'"'`)}' > ${name}; chmod +x ${name}`;
    for (const f of failing) script += `; touch 'fail-${f}'`;
    const r = await h().exec(script);
    assert.equal(r.code, 0, r.stderr);
    return { t: onPath(ops.connections.hostTransportForHost(fx.pool.hosts[0]), dir), dir };
  }
  const log = async (dir: string) => (await h().exec(`cat '${dir}/pm.log' 2>/dev/null || true`)).stdout;

  it('a runtime already there: nothing is installed', async () => {
    const { t, dir } = await node({ podman: '#!/bin/sh\n', 'apt-get': FAKE_PM, sudo: FAKE_SUDO });
    assert.equal(await installRuntime(t, ['podman', 'docker']), 'podman');
    assert.equal(await log(dir), '');
    await t.close();
  });

  it('apt-get (through passwordless sudo): waits for the dpkg lock, installs podman, says so', async () => {
    const { t, dir } = await node({ 'apt-get': FAKE_PM, sudo: FAKE_SUDO });
    const progress: string[] = [];
    assert.equal(await installRuntime(t, ['podman', 'docker'], (l) => progress.push(l)), 'podman');
    assert.equal(await log(dir), 'apt-get -q -y -o DPkg::Lock::Timeout=600 update\napt-get -q -y -o DPkg::Lock::Timeout=600 install podman\n');
    const d = t.description;
    assert.deepEqual(progress, [`${d}: updating the package lists (apt-get update)`, `${d}: installing podman with apt-get (no container runtime there)`, `${d}: installed podman`]);
    await t.close();
  });

  it('podman not installable: docker.io is tried next and docker used', async () => {
    const { t, dir } = await node({ 'apt-get': FAKE_PM, sudo: FAKE_SUDO }, ['podman']);
    assert.equal(await installRuntime(t, ['podman', 'docker']), 'docker');
    assert.match(await log(dir), /install podman\napt-get .* install docker\.io\n$/);
    await t.close();
  });

  it('dnf where there is no apt-get', async () => {
    const { t, dir } = await node({ dnf: FAKE_PM, sudo: FAKE_SUDO });
    assert.equal(await installRuntime(t, ['podman', 'docker']), 'podman');
    assert.equal(await log(dir), 'dnf -y install podman\n');
    await t.close();
  });

  const fails = async (t: Transport, kind: string, what: RegExp, fix: RegExp) => {
    await assert.rejects(installRuntime(t, ['podman', 'docker']), (e: Error) => {
      assert.ok(e instanceof ContainerError, String(e));
      assert.equal(e.kind, kind);
      const hh = h();
      assert.ok(e.message.startsWith(`ssh ${hh.user}@${hh.address}:${hh.port}: `), e.message);
      assert.match(e.message, what);
      assert.match(e.message, fix);
      return true;
    });
    await t.close();
  };

  it('nothing installs: an error naming the node, the package manager\'s message and the fix', async () => {
    const { t } = await node({ 'apt-get': FAKE_PM, sudo: FAKE_SUDO }, ['podman', 'docker.io']);
    await fails(t, 'install', /apt-get could not install a container runtime \(podman docker\) on \S+:\n[\s\S]*E: Unable to locate package docker\.io/, /→ see the package manager's message above/);
  });

  it('not root and no passwordless sudo: says so instead of trying', async () => {
    const { t, dir } = await node({ 'apt-get': FAKE_PM });
    await fails(t, 'no-root', /not root and has no passwordless sudo/, /→ log in as a user with passwordless sudo/);
    assert.equal(await log(dir), '');
  });

  it('no known package manager', async () => {
    const { t } = await node({ sudo: FAKE_SUDO });
    await fails(t, 'no-package-manager', /no apt-get, dnf or yum/, /→ use a Debian\/Ubuntu, Fedora\/RHEL or Amazon Linux image/);
  });
});

/** The transport with PATH set to `dir` for every command (the fakes stand in for the OS's). */
function onPath(t: Transport, dir: string): Transport {
  const env = <O extends { env?: Record<string, string> }>(o: O | undefined): O => ({ ...o, env: { ...o?.env, PATH: dir } }) as unknown as O;
  return {
    description: t.description,
    exec: (argv, o) => t.exec(argv, env(o)),
    execShell: (s, o) => t.execShell(s, env(o)),
    openChannel: (argv, o) => t.openChannel(argv, env(o)),
    upload: (a, b) => t.upload(a, b),
    close: () => t.close(),
  };
}
