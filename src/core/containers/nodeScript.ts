// The shell script that readies a node's container: runtime, login, pull, start, checks.
// It talks back in lines on stdout — `progress TEXT`, `error KIND TEXT`, `ok RUNTIME` — and
// leaves the runtime's own output on stderr (the error message quotes its tail).
// Arguments: $1 candidate runtimes (space-separated), $2 image, $3 container name, $4 uid,
// $5 "gpu" or "", $6 the reaper's Python, $7 the directory for what the node learnt about its
// runtime (empty: the node's ~/.skydeck), then the host paths to bind-mount at the same path.
// Stdin: the registry login (three lines) or nothing.

/** PID 1 of the container: reaps every orphan (a job's daemons, exited drivers), so a dead
 *  process never lingers as a zombie the agent's liveness check would have to wait out. */
export const REAPER = [
  'import os,signal,sys,time',
  'signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))',
  'while True:',
  ' try: os.wait()',
  ' except ChildProcessError: time.sleep(0.5)',
].join('\n');

/** The agent's needs inside the image (agent/README.md, "Containers"). */
export const NEEDS = 'python3 -c "import sys,sqlite3; sys.exit(0 if sys.version_info >= (3,8) else 3)" && ' +
  'for c in tar ln mv rm mkdir mktemp cat readlink chmod sleep; do command -v $c >/dev/null || { echo "no $c in the image" >&2; exit 1; }; done';

export const NODE_SCRIPT = `
set -u
RTS=$1 IMG=$2 NAME=$3 UID_=$4 GPU=$5 REAPER_PY=$6 HINTS=$7; shift 7
[ -n "$HINTS" ] || HINTS=\${HOME:+$HOME/.skydeck}
RT=
for c in $RTS; do if command -v "$c" >/dev/null 2>&1; then RT=$c; break; fi; done
if [ -z "$RT" ]; then echo "error no-runtime no container runtime ($RTS) on $(uname -n)"; exit 3; fi
echo "runtime $RT"
# A runtime that is installed but cannot run (rootless podman without newuidmap, a docker
# daemon the user may not reach) is said as such, not as a failed login or pull. Asked only
# when something failed or a login comes: \`podman info\` costs ~0.4 s of CPU (it asks dpkg
# for package versions), and an image inspect that works proves the runtime runs.
runtime_ok() {
  if ! err=$("$RT" info 2>&1 >/dev/null); then
    printf '%s\n' "$err" | tail -n 4 >&2; echo "error runtime $RT on $(uname -n) cannot run containers"; exit 3
  fi
}
IFS= read -r SRV || SRV=
if [ -n "$SRV" ]; then
  runtime_ok
  IFS= read -r USR; IFS= read -r PW
  echo "progress logging in to $SRV"
  if ! printf '%s\\n' "$PW" | "$RT" login --username "$USR" --password-stdin "$SRV" >/dev/null; then
    echo "error login $RT login to $SRV failed"; exit 4
  fi
fi
unset PW
if "$RT" image inspect "$IMG" >/dev/null 2>&1; then
  echo "progress image $IMG is on the node"
else
  [ -n "$SRV" ] || runtime_ok
  echo "progress pulling $IMG"
  if ! "$RT" pull "$IMG" >&2; then echo "error pull could not pull $IMG"; exit 5; fi
  echo "progress pulled $IMG"
fi
state=$("$RT" container inspect --format '{{.State.Running}}' "$NAME" 2>/dev/null || true)
if [ "$state" = true ]; then echo "progress container $NAME is running"; echo "ok $RT"; exit 0; fi
if [ -n "$state" ]; then
  echo "progress starting stopped container $NAME"
  "$RT" start "$NAME" >/dev/null || { echo "error start could not start $NAME"; exit 6; }
else
  # Each host path becomes "-v P:P" in the positional parameters (paths may hold spaces).
  n=$#; for p in "$@"; do mkdir -p "$p"; set -- "$@" -v "$p:$p"; done; shift "$n"
  run() {
    extra=$1; shift
    # shellcheck disable=SC2086
    "$RT" $extra run -d --name "$NAME" --label "skydeck-cluster-uid=$UID_" --network=host \\
      --entrypoint /bin/sh $GPUFLAGS $ULIM "$@" "$IMG" -c 'command -v python3 >/dev/null && exec python3 -I -S -c "$0"; trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done' "$REAPER_PY"
  }
  GPUFLAGS=
  if [ "$GPU" = gpu ]; then
    if [ "$RT" = docker ]; then GPUFLAGS="--gpus all"; else GPUFLAGS="--device nvidia.com/gpu=all"; fi
  fi
  # A VM without CAP_SYS_RESOURCE refuses the runtime's default limits, and crun refuses
  # hybrid cgroup hierarchies: then the shell's own limits (and runc) are used. A host that
  # needed them once is marked, so its later starts skip the failing try (2-4 s each).
  own_limits() {
    hn=$(ulimit -Hn); hu=$(ulimit -Hp 2>/dev/null || ulimit -Hu 2>/dev/null || echo 32768)
    # (dash names the process limit -p, bash -u; podman itself runs with at most 32768)
    case $hu in ''|*[!0-9]*) hu=32768 ;; esac; [ "$hu" -gt 32768 ] && hu=32768
    case $hn in ''|*[!0-9]*) hn=1048576 ;; esac
    ULIM="--ulimit nofile=$hn:$hn --ulimit nproc=$hu:$hu"; extra=
    if [ "$RT" = podman ] && command -v runc >/dev/null 2>&1; then extra="--runtime runc"; fi
  }
  HINT=\${HINTS:+$HINTS/container-own-limits-$RT}
  ULIM= extra= started=
  echo "progress starting container $NAME"
  if [ -n "$HINT" ] && [ -f "$HINT" ]; then
    own_limits
    if out=$(run "$extra" "$@" 2>&1); then started=1
    else "$RT" rm -f "$NAME" >/dev/null 2>&1; rm -f "$HINT"; ULIM= extra=; fi
  fi
  if [ -z "$started" ] && ! out=$(run "" "$@" 2>&1); then
    case $out in
      *rlimit*|*"hybrid mode"*)
        "$RT" rm -f "$NAME" >/dev/null 2>&1
        own_limits
        echo "progress retrying with the node's own limits ($ULIM \${extra:-})"
        if ! out=$(run "$extra" "$@" 2>&1); then echo "$out" >&2; echo "error start could not start a container of $IMG"; exit 6; fi
        if [ -n "$HINT" ]; then mkdir -p "$HINTS" 2>/dev/null && : > "$HINT" 2>/dev/null || true; fi ;;
      *) echo "$out" >&2; echo "error start could not start a container of $IMG"; exit 6 ;;
    esac
  fi
fi
i=0; while [ "$("$RT" container inspect --format '{{.State.Running}}' "$NAME" 2>/dev/null)" != true ]; do
  i=$((i+1)); if [ $i -ge 50 ]; then "$RT" logs "$NAME" >&2 2>&1; echo "error start container $NAME of $IMG exited at once"; exit 6; fi; sleep 0.1
done
if ! "$RT" exec "$NAME" /bin/sh -c '${NEEDS.replace(/'/g, `'"'"'`)}' >&2 2>&1; then
  "$RT" rm -f "$NAME" >/dev/null 2>&1
  echo "error image $IMG lacks what the Skydeck agent needs inside it: /bin/sh, python3 (3.8 or newer, with sqlite3), tar and coreutils"; exit 7
fi
echo "ok $RT"
`;
