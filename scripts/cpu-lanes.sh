#!/usr/bin/env bash
# Where the suite's CPU goes: runs `npm test` with each mocha part in a cgroup (v1 cpuacct) of
# its own, so the reporter's "most CPU" list counts every process a file started (sshd hosts,
# containers, agents). Needs root and a cpuacct hierarchy at /sys/fs/cgroup/cpuacct.
# Usage: bash scripts/cpu-lanes.sh [mocha args...]   (as root; default: the whole unit + integration tree)
set -euo pipefail
cd "$(dirname "$0")/.."
base=/sys/fs/cgroup/cpuacct
[ -w "$base" ] || { echo "cpu-lanes: needs root and a writable $base" >&2; exit 2; }
cg="$base/skydeck-cpu-$$"
mkdir "$cg"
trap 'echo $$ > "$base/cgroup.procs"; rmdir "$cg" 2>/dev/null || echo "cpu-lanes: $cg still has processes; rmdir it later" >&2' EXIT
echo $$ > "$cg/cgroup.procs"
export SKYDECK_TEST_CPUACCT="$cg/cpuacct.usage"
if [ $# -gt 0 ]; then npx mocha "$@"; else npx mocha; fi
