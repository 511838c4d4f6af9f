#!/usr/bin/env bash
# Where the suite's CPU goes: runs `npm test` with each mocha part in a cgroup (v1 cpuacct) of
# its own, so the reporter's "most CPU" list counts every process a file started (sshd hosts,
# containers, agents). Needs root and a cpuacct hierarchy at /sys/fs/cgroup/cpuacct.
# Usage: bash scripts/cpu-lanes.sh part1|part2|MOCHA-ARGS...   (as root; part1/part2: the two
# mocha parts of `npm test` as testSuites.mjs lists them; run both at once to see CI's lanes)
set -euo pipefail
cd "$(dirname "$0")/.."
base=/sys/fs/cgroup/cpuacct
[ -w "$base" ] || { echo "cpu-lanes: needs root and a writable $base" >&2; exit 2; }
cg="$base/skydeck-cpu-$$"
mkdir "$cg"
# A scratch Skydeck home per run, as run-tests.mjs gives each suite: two parts at once share none.
home="$(mktemp -d /tmp/skydeck-cpu-home-XXXXXX)"
export SKYDECK_HOME="${SKYDECK_HOME:-$home/skydeck}" SKYDECK_CONTROLLER_HOME="${SKYDECK_CONTROLLER_HOME:-$home/controller}" SKYDECK_HOLDER_DIR="${SKYDECK_HOLDER_DIR:-$home/holder}"
trap 'echo $$ > "$base/cgroup.procs"; rm -rf "$home"; for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$cg" 2>/dev/null && break; sleep 1; done; [ ! -d "$cg" ] || echo "cpu-lanes: $cg still has processes: $(cat "$cg/cgroup.procs" | tr "\n" " ")" >&2' EXIT
echo $$ > "$cg/cgroup.procs"
export SKYDECK_TEST_CPUACCT="$cg/cpuacct.usage"
case "${1:-}" in
  part1|part2)
    # The part's own arguments, as run-tests.mjs would give them (NUL-separated: globs stay whole).
    mapfile -d '' args < <(node --input-type=module -e "
      const { testSuites } = await import('./scripts/testSuites.mjs');
      const s = testSuites({ ci: false }).filter((x) => x.cmd === 'npx')[$([ "$1" = part1 ] && echo 0 || echo 1)];
      process.stdout.write(s.args.join('\\0') + '\\0');")
    npx "${args[@]}" ;;
  '') echo "cpu-lanes: say part1, part2 or mocha's arguments" >&2; exit 2 ;;
  *) npx mocha "$@" ;;
esac
