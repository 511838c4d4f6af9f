"""A gang rank on a worker, started with no Python there: a constant POSIX sh script.

The gang driver (gang.py) runs `sh -c BOOT skydeck-rank BASE JOB RANK PHASE PY AGENT` on the
worker over ssh; none of those arguments comes from the spec, and BOOT is one line. The job's
variables (secrets too), the head's workdir and home, the umask, the phase's script and the rank
script itself arrive on stdin as sh assignments whose every value is single-quoted here
(payload()), so the worker's sh only evaluates quoted literals; they stay in memory, never on
the worker's disk except the phase's script, as `_rank` wrote it. What `_rank` (rank.py) did in
Python, this does in sh: the job marker of the worker's base dir, the workdir mapped from the
head's home to this node's, the user's shell, the exit file. Only a node with MOUNT_CACHED
mounts registered starts Python, after run, for the upload wait (`_rankwait`).
"""
import re
import shlex

NAME = re.compile(r'[A-Za-z_][A-Za-z0-9_]*\Z')

# The remote command line is this one line (any login shell, csh too, passes it to sh as is):
# the request on stdin is evaluated, checked for its end line, and carries the script below.
BOOT = ('umask 077; eval "$(cat)" || exit 1; [ "${_sd_end-}" = 1 ] || '
        '{ echo "skydeck: the rank request was cut short"; exit 1; }; eval "$_sd_rank"')

RANK = r'''base=$1 job=$2 rank=$3 phase=$4 py=$5 agent=$6
unset _sd_rank
unset SKYDECK_JOB_ID SKYDECK_NUM_NODES SKYDECK_NODE_RANK SKYDECK_NODE_IPS SKYDECK_CLUSTER_NAME \
  SKYDECK_JOB_NAME SKYDECK_JOB_MARKER
real=$(cd "$base" && pwd -P) || exit 1
set -- $(printf '%s' "$real" | sha256sum)
export SKYDECK_JOB_MARKER="$(printf '%.16s' "$1"):$job"
d=$base/jobs/$job
[ -d "$d" ] || mkdir -p "$d" || exit 1
f=$d/rank-$rank-$phase.sh
printf '%s' "$_sd_script" >"$f" || exit 1
unset _sd_script
cwd=$_sd_cwd
if [ -z "$cwd" ]; then cwd=$HOME
elif [ -n "$_sd_home" ]; then
  h=${_sd_home%/}
  case $cwd in "$h"|"$h"/*) cwd=$HOME${cwd#"$h"};; esac
fi
shell=$(command -v bash) || shell=/bin/sh
if [ -d "$cwd" ]; then
  # The job's variables last, in the subshell only: nothing above runs with them.
  (for v in $_sd_vars; do eval "export $v=\"\$_sd_v_$v\""; done
   cd "$cwd" && { [ -z "$_sd_umask" ] || umask "$_sd_umask"; } && exec "$shell" "$f" </dev/null)
  code=$?
  if [ "$phase" = run ]; then
    for m in "$base"/storage/cached/*.json; do
      if [ -e "$m" ]; then
        "$py" -E -S "$agent" --base "$base" _rankwait "$job" "$code" </dev/null
        code=$?
        break
      fi
    done
  fi
else
  echo "skydeck: the workdir $cwd does not exist on this node"
  code=1
fi
echo "$code" >"$d/rank-$rank-$phase.exit"
exit "$code"
'''


def argv(worker, job_id, rank, phase):
    """The worker-side command (ssh quotes each word for the remote shell)."""
    return ['sh', '-c', BOOT, 'skydeck-rank', worker['base'], str(job_id), str(rank), phase,
            worker['python'], worker['agent']]


def payload(variables, script, cwd, head_home, umask):
    """stdin of the rank: assignments of quoted literals, then an end line (so the trailing
    newlines `$(cat)` strips are never part of a value). Names that sh cannot hold are left out."""
    names = [k for k in sorted(variables) if NAME.match(k)]
    lines = ['_sd_v_%s=%s' % (k, shlex.quote(variables[k])) for k in names]
    lines.append('_sd_vars=%s' % shlex.quote(' '.join(names)))
    for k, v in (('script', script), ('cwd', cwd or ''), ('home', head_home or ''), ('umask', umask or '')):
        lines.append('_sd_%s=%s' % (k, shlex.quote(v)))
    lines.append('_sd_rank=%s' % shlex.quote(RANK))
    lines.append('_sd_end=1')
    return ('\n'.join(lines) + '\n').encode('utf-8', 'surrogateescape')
