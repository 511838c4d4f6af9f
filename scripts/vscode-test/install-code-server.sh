#!/usr/bin/env bash
# Installs what the real-VS-Code tests need, outside the repo and idempotently:
#   - Debian packages: a toolchain for code-server's native modules, ripgrep, chromium
#   - code-server@4.100.3 (VS Code 1.100.3; the newest that runs on Node 20) under
#     ${SKYDECK_TEST_CACHE:-/var/cache/skydeck-test}/code-server
# Fresh: ~1-3 min (mostly npm building code-server's native modules on 2 cores). Already
# installed: well under a second. Prints the code-server binary path as its last line.
#
# This machine reaches only the npm registry and Debian apt, so every step that would download
# a binary from elsewhere is pre-empted (ripgrep from apt instead of @vscode/ripgrep's download,
# Debian's Chromium instead of Playwright's).
set -euo pipefail

VERSION=4.100.3
CACHE="${SKYDECK_TEST_CACHE:-/var/cache/skydeck-test}"
DIR="$CACHE/code-server"
STAMP="$DIR/.installed-$VERSION"
BIN="$DIR/node_modules/.bin/code-server"
APT_PACKAGES=(build-essential python3 pkg-config libkrb5-dev ripgrep chromium)
# Native modules are built for one Node ABI: another Node means another install.
NODE_ABI="node-abi=$(node -p process.versions.modules 2>/dev/null || echo none)"

log() { printf '[install-code-server] %s\n' "$*" >&2; }
started=$(date +%s%N)
elapsed() { echo "$(( ($(date +%s%N) - started) / 1000000 )) ms"; }

apt_missing() {
  local p missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  echo "${missing[@]:-}"
}

# Fast path: everything is there already.
missing="$(apt_missing)"
installed() { [ -x "$BIN" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$NODE_ABI" ]; }
if [ -z "$missing" ] && installed; then
  log "code-server $VERSION already installed in $DIR ($(elapsed))"
  echo "$BIN"
  exit 0
fi

mkdir -p "$CACHE"
# One installer at a time (two test runs started together must not both npm install).
exec 9>"$CACHE/.install.lock"
if ! flock -n 9; then
  log "another install is running; waiting for it"
  flock 9
fi

missing="$(apt_missing)"
if [ -n "$missing" ]; then
  log "apt: installing $missing"
  export DEBIAN_FRONTEND=noninteractive
  # Other installs (another test run, CI's own apt step) may hold dpkg's lock: wait for it.
  apt() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }
  # An install can fail on a stale package list; update once and retry.
  # shellcheck disable=SC2086
  if ! apt install -y -qq --no-install-recommends $missing >/dev/null 2>"$CACHE/apt.err"; then
    log "apt: updating package lists"
    apt update -qq
    # shellcheck disable=SC2086
    apt install -y -qq --no-install-recommends $missing >/dev/null
  fi
  log "apt: done ($(elapsed))"
fi

if installed; then
  log "code-server $VERSION already installed in $DIR ($(elapsed))"
  echo "$BIN"
  exit 0
fi

for tool in rg node npm; do
  command -v "$tool" >/dev/null || { log "missing $tool on PATH"; exit 1; }
done

# Install into a staging dir and rename at the end, so an interrupted install never looks done.
STAGE="$CACHE/code-server.partial"
TMP="$CACHE/tmp"
rm -rf "$STAGE" "$TMP"
mkdir -p "$STAGE" "$TMP"

# @vscode/ripgrep's postinstall downloads rg from GitHub; it first looks in
# $TMPDIR/vscode-ripgrep-cache-<its version>/ for the release tarball. Seed that with Debian's rg.
RG_ASSET="ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
for rgpkg in 1.15.11; do
  mkdir -p "$TMP/vscode-ripgrep-cache-$rgpkg"
  tar -czf "$TMP/vscode-ripgrep-cache-$rgpkg/$RG_ASSET" -C "$(dirname "$(command -v rg)")" rg
done

export TMPDIR="$TMP"
export JOBS=max                         # node-gyp: compile each native module on all cores
export npm_config_unsafe_perm=true      # code-server's postinstall refuses to run as root otherwise
export npm_config_yes=true              # node-pty's postinstall runs `npx node-gyp`
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
# Build native modules against this Node's own headers (node-gyp would download them).
if [ -z "${npm_config_nodedir:-}" ] && [ -z "$(npm config get nodedir 2>/dev/null | grep -v '^null$' || true)" ]; then
  nodeprefix="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
  [ -f "$nodeprefix/include/node/node.h" ] && export npm_config_nodedir="$nodeprefix"
fi

log "npm: installing code-server@$VERSION into $DIR (native modules are built here; ~1 min)"
echo '{"private":true}' >"$STAGE/package.json"
if ! (cd "$STAGE" && npm install --no-save --no-package-lock --loglevel=error "code-server@$VERSION" >"$CACHE/npm-install.log" 2>&1); then
  log "npm install failed; last lines of $CACHE/npm-install.log:"
  tail -n 40 "$CACHE/npm-install.log" >&2
  exit 1
fi
log "npm: done ($(elapsed))"

# (XDG_CONFIG_HOME: --version writes a default config.yaml there; keep it out of ~/.config.)
if ! ver="$(XDG_CONFIG_HOME="$TMP" "$STAGE/node_modules/.bin/code-server" --version 2>&1 | grep -v 'Wrote default config' | head -n 1)"; then
  log "code-server does not start: $ver"
  exit 1
fi
log "code-server --version: $ver"
[ -x "$STAGE/node_modules/@vscode/ripgrep/bin/rg" ] || [ -n "$(find "$STAGE/node_modules" -path '*@vscode/ripgrep/bin/rg' -print -quit)" ] \
  || log "warning: no @vscode/ripgrep binary found (search in the workbench will not work)"

rm -rf "$DIR" "$TMP"
mv "$STAGE" "$DIR"
echo "$NODE_ABI" >"$STAMP"
log "installed code-server $VERSION in $DIR ($(elapsed))"
echo "$BIN"
