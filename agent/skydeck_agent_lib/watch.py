"""Watch mode: the daemon's lean form while its only work is watching running drivers.

A Python daemon costs about 12 MB of memory for as long as jobs run; most of that time all it
does is look whether each driver is still the process it was. So once a full sweep found
nothing else to do (daemon.py decides when), the daemon exec()s itself into a small /bin/sh
loop: same pid (daemon.pid, `running_pid`, `ensure` and `wake` stay valid), and the flock on
daemon.lock and the guard pipe's write end are kept across the exec, so neither a second
daemon nor a revive can start. Every interval the loop reads /proc/PID/stat of each watched
driver and execs back into the full Python daemon when one is gone or its start time differs
(the sweep then records why), when its guard is gone (the Python daemon starts a new one),
when daemon.wake exists (`daemon_ctl.wake`: a new driver, a kill deadline, an autostop
setting), and after a bounded number of rounds anyway. USR1 stays ignored for the sh's whole
life: no sh can trap it from its first instruction, and a wake must never kill the daemon. SIGTERM makes it leave the
way the Python daemon leaves: "bye" to its guard, daemon.pid then daemon.wake removed, lock
released.

The script is constant; every value comes on its argv. The two descriptors sit at fixed
numbers (LOCK_FD, GUARD_FD) because the script must close them for its `sleep` (a sleep that
outlived a killed watcher would hold the lock and the pipe, and the guard could not revive).
"""
import fcntl
import math
import os
import stat
import sys
import time

from . import procs
from .states import ACTIVE, sql_list

HOLD_ENV = 'SKYDECK_DAEMON_WATCH_HOLD'  # seconds in Python after a wake or a change (default 10; < 0: never watch)
SPAN_ENV = 'SKYDECK_DAEMON_WATCH_SPAN'  # seconds in sh before a full sweep anyway (default 60)
MAX_WATCHED = 1000  # more drivers than this: sh's per-round /proc reads cost more than Python
LOCK_FD, GUARD_FD = 8, 9
NAME = 'skydeck-watch'

# $1 python  $2 agent  $3 base dir  $4 daemon.pid  $5 daemon.wake  $6 interval  $7 rounds
# $8 $9 guard pid and start; then driver pid/start pairs. fd 8: daemon.lock (held), fd 9: the
# guard pipe. USR1 comes in ignored (daemon.py) and stays so into the next Python, which
# installs its handler before it writes anything a waker reads: here a wake is the file.
# PATH is its starter's (a driver's report may start a daemon with a job's envs, "." or an
# empty PATH included): sleep and rm are looked for in /usr/bin and /bin first, and the next
# Python gets PATH as it came.
SCRIPT = r'''py=$1 agent=$2 base=$3 pidfile=$4 wake=$5 iv=$6 rounds=$7 gpid=$8 gstart=$9
shift 9
opath=$PATH
PATH=/usr/bin:/bin${PATH:+:$PATH}
back() {
  PATH=$opath
  exec "$py" -E -S "$agent" --base "$base" _daemon --lock-fd 8 --guard-fd 9 --guard-pid "$gpid" --guard-start "$gstart" --woke "$1"
}
leave() {
  echo bye >&9 2>/dev/null
  rm -f "$pidfile" "$wake"
  exit 0
}
trap leave TERM
same() {
  want=$2 line=
  { read -r line < "/proc/$1/stat"; } 2>/dev/null || [ -n "$line" ] || return 1
  set -- ${line##*') '}
  [ "$1" != Z ] && [ "$1" != X ] && [ "${20}" = "$want" ]
}
n=0
while [ "$n" -lt "$rounds" ]; do
  [ -e "$wake" ] && back wake
  sleep "$iv" 8<&- 9>&- &
  wait $!
  n=$((n + 1))
  same "$gpid" "$gstart" || back guard
  pid=
  for x in "$@"; do
    if [ -z "$pid" ]; then pid=$x; continue; fi
    same "$pid" "$x" || back change
    pid=
  done
done
back rounds
'''


def settings(interval):
    """(hold, rounds): seconds to stay in Python after a change, sh rounds before a sweep."""
    try:
        hold = float(os.environ.get(HOLD_ENV) or 10.0)
    except ValueError:
        hold = 10.0
    try:
        span = float(os.environ.get(SPAN_ENV) or 60.0)
    except ValueError:
        span = 60.0
    return hold, max(1, int(math.ceil(span / max(interval, 0.01))))


def possible():
    return procs.HAVE_PROC and os.access('/bin/sh', os.X_OK)


def targets(conn):
    """The (pid, start) of every running driver, or None when one is not known yet (a claim
    whose driver was not recorded: the sweep's timeout watches it, sh cannot)."""
    out = set()
    for pid, start in conn.execute('SELECT driver_pid, driver_start FROM jobs WHERE status IN (%s)'
                                   % sql_list(ACTIVE)):
        if not whole(pid) or not whole(start):
            return None
        out.add((pid, start))
    return frozenset(out)


def whole(v):
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


class Calm(object):
    """When the daemon may become the watch-mode sh: hold seconds after its start, a wake, or
    any change (the set of running drivers, a failure, a start, an escalation), so a burst of
    submits does not pay a Python start each. Back after the round limit or for a new guard,
    what the sh watched is taken as unchanged: one sweep, and it may go back at once."""

    def __init__(self, woke, hold):
        self.hold = hold
        same = woke in ('rounds', 'guard')  # nothing the sh watched changed
        self.since = float('-inf') if same else time.time()
        self.watched = 'adopt' if same else None

    def see(self, now, watched, swept, woken):
        """One sweep's outcome: the drivers now running, what it did, whether it was woken."""
        if self.watched == 'adopt':
            self.watched = watched
        if woken or watched != self.watched or (swept and any(swept.get(k) for k in
                                                               ('failed', 'escalated', 'started'))):
            self.since = now
        self.watched = watched

    def ripe(self, now):
        return self.hold >= 0 and now - self.since >= self.hold


def pin(lock_fd, guard_fd):
    """Move the lock and the guard pipe to LOCK_FD and GUARD_FD (not inheritable yet). Returns
    False, having changed nothing, when another open file sits there."""
    for target in (LOCK_FD, GUARD_FD):
        if target in (lock_fd, guard_fd):
            continue
        try:
            os.fstat(target)
            return False
        except OSError:
            pass
    copies = [fcntl.fcntl(f, fcntl.F_DUPFD_CLOEXEC, 64) for f in (lock_fd, guard_fd)]
    for f in (lock_fd, guard_fd):
        if f not in (LOCK_FD, GUARD_FD):
            os.close(f)
    os.dup2(copies[0], LOCK_FD, inheritable=False)
    os.dup2(copies[1], GUARD_FD, inheritable=False)
    for c in copies:
        os.close(c)
    return True


def is_pipe(fd):
    try:
        return stat.S_ISFIFO(os.fstat(fd).st_mode)
    except OSError:
        return False


def exec_sh(ctx, interval, rounds, guard_who, watched):
    """Become the watcher (LOCK_FD and GUARD_FD pinned). Returns only if the exec failed."""
    argv = ['/bin/sh', '-c', SCRIPT, NAME, sys.executable or 'python3', ctx.agent_path,
            ctx.paths.base, ctx.paths.daemon_pid, ctx.paths.daemon_wake, '%g' % interval, str(rounds),
            str(guard_who[0]), str(guard_who[1])]
    for pid, start in sorted(watched):
        argv += [str(pid), str(start)]
    sys.stderr.flush()
    for fd in (LOCK_FD, GUARD_FD):
        os.set_inheritable(fd, True)
    try:
        os.execv(argv[0], argv)
    except OSError as e:
        sys.stderr.write('watch mode: could not exec /bin/sh: %r\n' % (e,))
        sys.stderr.flush()
    for fd in (LOCK_FD, GUARD_FD):
        os.set_inheritable(fd, False)
