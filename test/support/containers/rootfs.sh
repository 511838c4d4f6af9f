#!/bin/bash
# Writes a minimal root filesystem tarball (for `podman import`) made of this machine's own
# files: bash, dash as sh, Debian's python3 with its stdlib (sqlite3 included: the agent needs
# it), coreutils, procps and an ssh client (a multi-node head starts its workers' ranks with it). No registry is reachable from the test machines, so the container
# tests build their image from what is installed. Usage: rootfs.sh OUT.tar [--no-python]
set -euo pipefail
out=$1; nopy=${2:-}
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
# bash, dash, all of coreutils, and the few more a job or the agent may call.
bins=(bash dash ps pgrep grep sed tar find xargs hostname ssh
  $(dpkg -L coreutils | sed -n 's|^/usr/bin/||p;s|^/bin/||p' | grep -v '\['))
paths=()
for b in "${bins[@]}"; do paths+=("/usr/bin/$b"); done
if [ "$nopy" != --no-python ]; then
  paths+=(/usr/bin/python3.11 /usr/lib/python3.11/lib-dynload/*.so)
fi
# Each binary's shared libraries, at their real paths (merged /usr: /lib is a link).
libs=$(ldd "${paths[@]}" 2>/dev/null | grep -o '^[[:space:]].*/[^ ]*' | grep -o '/[^ ]*' | sort -u)
for f in "${paths[@]}" $libs; do
  # The file under its own name, in its directory with links resolved (/lib64 → /usr/lib64).
  dir=$(readlink -f "$(dirname "$f")"); mkdir -p "$stage$dir"; cp -pL "$f" "$stage$dir/$(basename "$f")"
done
if [ "$nopy" != --no-python ]; then
  mkdir -p "$stage/usr/lib"
  tar -C /usr/lib --exclude=test --exclude=__pycache__ --exclude=idlelib --exclude=tkinter \
    --exclude=ensurepip --exclude=lib2to3 --exclude=site-packages --exclude=dist-packages -cf - python3.11 | tar -C "$stage/usr/lib" -xf -
  ln -s python3.11 "$stage/usr/bin/python3"
fi
ln -s dash "$stage/usr/bin/sh"
ln -s usr/bin "$stage/bin"; ln -s usr/lib "$stage/lib"; ln -s usr/lib64 "$stage/lib64"
mkdir -p "$stage/etc" "$stage/tmp" "$stage/root" "$stage/proc" "$stage/sys" "$stage/dev" "$stage/run"
chmod 1777 "$stage/tmp"
printf 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
tar -C "$stage" -cf "$out" .
