// A cloud node without a container runtime gets one from its OS packages before the container
// is readied (the clouds' default images have none). An ssh pool host is never changed: the
// node script says what to install there instead (provision.ts, "no-runtime").
// The script talks back in the node script's lines: `progress TEXT`, `error KIND TEXT`,
// `ok RUNTIME`; the package manager's own output goes to stderr (an error quotes its tail).
// Arguments: $1 the candidate runtimes (space-separated), in order of preference.
import type { Transport } from '../transport';
import { scriptLines } from './scriptLines';
import { ContainerError, DEFAULT_RUNTIMES } from './provision';

export const INSTALL_SCRIPT = `
set -u
RTS=$1
node=$(uname -n)
for c in $RTS; do if command -v "$c" >/dev/null 2>&1; then echo "ok $c"; exit 0; fi; done
if [ "$(id -u)" = 0 ]; then SUDO=
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then SUDO="sudo -n"
else echo "error no-root no container runtime ($RTS) on $node, and this user is not root and has no passwordless sudo to install one"; exit 3
fi
# One package per runtime name, as each family's repositories call it.
if command -v apt-get >/dev/null 2>&1; then
  PM=apt-get
  # A fresh cloud VM's unattended upgrades hold the dpkg lock for minutes: wait for it.
  pm() { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=600 "$@"; }
  pkg() { case $1 in docker) echo docker.io ;; *) echo "$1" ;; esac; }
  echo "progress updating the package lists (apt-get update)"
  pm update >&2 || { echo "error install apt-get update failed on $node"; exit 4; }
elif command -v dnf >/dev/null 2>&1; then
  PM=dnf; pm() { $SUDO dnf -y "$@"; }; pkg() { echo "$1"; }
elif command -v yum >/dev/null 2>&1; then
  PM=yum; pm() { $SUDO yum -y "$@"; }; pkg() { echo "$1"; }
else
  echo "error no-package-manager no container runtime ($RTS) on $node and no apt-get, dnf or yum to install one"; exit 3
fi
for c in $RTS; do
  p=$(pkg "$c")
  echo "progress installing $p with $PM (no container runtime there)"
  if pm install "$p" >&2 && command -v "$c" >/dev/null 2>&1; then
    echo "progress installed $p"; echo "ok $c"; exit 0
  fi
  echo "progress $PM could not install $p"
done
echo "error install $PM could not install a container runtime ($RTS) on $node"; exit 5
`;

const FIX: Record<string, string> = {
  'no-root': 'log in as a user with passwordless sudo (the cloud image\'s default user has it), or use an image that has podman or docker',
  'no-package-manager': 'use a Debian/Ubuntu, Fedora/RHEL or Amazon Linux image, or one with podman or docker installed',
  install: 'see the package manager\'s message above (a mirror the node cannot reach, no disk space); install podman (or docker.io) on the image yourself, or pick an image that has it',
};

/**
 * Makes sure the node has one of the runtimes, installing the first that its package manager
 * can (progress to `progress`); resolves to the runtime. Rejects with a ContainerError naming
 * the node, the cause and the fix.
 */
export async function installRuntime(host: Transport, runtimes: string[] = DEFAULT_RUNTIMES, progress: (line: string) => void = () => undefined): Promise<string> {
  let runtime = '';
  let error: { kind: string; text: string } | undefined;
  const onLine = (line: string) => {
    const [word, ...rest] = line.split(' ');
    if (word === 'progress') progress(`${host.description}: ${rest.join(' ')}`);
    else if (word === 'ok') runtime = rest.join(' ');
    else if (word === 'error') error = { kind: rest[0], text: rest.slice(1).join(' ') };
  };
  const lines = scriptLines(onLine);
  const r = await host.exec(['/bin/sh', '-c', INSTALL_SCRIPT, 'sh', runtimes.join(' ')], {
    onStdout: lines.onStdout,
  });
  lines.flush();
  if (r.code === 0 && runtime) return runtime;
  const tail = r.stderr.toString().trim().split('\n').slice(-6).join('\n');
  const kind = error?.kind ?? 'install';
  const what = error?.text ?? `the runtime install script exited with ${r.code ?? r.signal}`;
  throw new ContainerError(`${host.description}: ${what}${tail ? `:\n${tail}` : ''}\n→ ${FIX[kind] ?? FIX.install}`, kind);
}
