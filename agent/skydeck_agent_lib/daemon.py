"""The small detached daemon that runs the liveness sweep every few seconds.

One per base dir, guarded by an flock on daemon.lock (no pid-file races). Any agent call that
sees work for it starts it if it is not running, or replaces it if an older agent version runs
it (daemon_ctl.py). It exits by itself once nothing has been non-terminal for a while, and
opens no port.

A daemon killed outright (SIGKILL, the out-of-memory killer) is started again by its guard: a
tiny detached sh blocked reading a pipe whose only writer is the daemon. The daemon writes
"bye" before any orderly exit; end of file without it means the daemon died, and the guard
runs `_revive`, which starts a new one if there is work. The daemon in turn starts a new guard
on its next tick if the guard is gone. So liveness never waits for a client call.

While only running drivers need watching, the daemon execs itself into a small sh loop (watch
mode, watch.py) and back into Python on any change: same pid, same lock, same guard.
"""
import fcntl
import os
import select
import signal
import sys
import time

from . import VERSION
from . import autostop, cgroups, db, driver, liveness, park, procs, spawn, stage, watch
from .job_cgroups import remove_cgroups
from .daemon_ctl import ensure, open_lock, running_pid, take_wake, tick_interval, try_lock
from .errors import AgentError
from .nodes import close_masters
from .states import NON_TERMINAL, sql_list

IDLE_ENV = 'SKYDECK_DAEMON_IDLE_EXIT'     # idle seconds before exiting (default 60)


def shutdown(ctx, args):
    """Before a cluster is torn down: finish every pending kill escalation now (the caller
    wants nothing left running) and stop the daemon. Refused while a job is not terminal."""
    if not ctx.has_db():
        return {'stopped': False, 'daemon_pid': None, 'escalated': []}
    conn = ctx.conn()
    busy = [r[0] for r in conn.execute('SELECT job_id FROM jobs WHERE status IN (%s) ORDER BY '
                                       'job_id' % sql_list(NON_TERMINAL))]
    if busy:
        raise AgentError('busy', '%d job(s) are not finished (%s); cancel them first' %
                         (len(busy), ', '.join(map(str, busy[:20]))), {'job_ids': busy})
    escalated = liveness.escalate_overdue(ctx, float('inf'), procs.boot_id())
    park.sweep(ctx.paths, conn)  # every job ended: no driver may stay parked
    # The killed processes leave their cgroups within moments; then the cgroups go too.
    end = time.time() + 2
    while conn.execute('SELECT 1 FROM jobs WHERE cgroup IS NOT NULL LIMIT 1').fetchone():
        remove_cgroups(ctx)
        if time.time() >= end:
            break
        time.sleep(0.02)
    close_masters(ctx.paths, (db.get_meta(conn, 'cluster', {}) or {}).get('workers'))
    pid = running_pid(ctx.paths)
    if pid:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass
        end = time.time() + 5
        while time.time() < end and procs.is_same_process(pid, None):
            time.sleep(0.02)
    return {'stopped': bool(pid), 'daemon_pid': pid, 'escalated': escalated}


# argv after the script: $1 interpreter, $2 agent, $3 base dir. fd 3: the daemon's pipe.
GUARD = r'''if read -r word <&3; then exit 0; fi
exec 3<&-
exec "$1" -E -S "$2" --base "$3" _revive
'''


class Guard(object):
    """The daemon's end of its guard: the pipe's write end and who the guard is."""

    def __init__(self, ctx):
        self.ctx, self.fd, self.who = ctx, None, None

    def adopt(self, fd, who):
        """Back from watch mode (watch.py): the guard started before the exec is still ours."""
        if watch.is_pipe(fd):
            os.set_inheritable(fd, False)
            self.fd, self.who = fd, who

    def check(self):
        """Start a guard if there is none (the first tick) or it died."""
        if self.who and procs.is_same_process(*self.who):
            return
        self.close()
        r, w = os.pipe()
        held = fcntl.fcntl(r, getattr(fcntl, 'F_DUPFD_CLOEXEC', fcntl.F_DUPFD), 10)
        os.set_inheritable(held, False)
        os.close(r)
        try:
            argv = ['/bin/sh', '-c', GUARD, 'skydeck-guard', sys.executable or 'python3',
                    self.ctx.agent_path, self.ctx.paths.base]
            env = driver.filtered_environ(os.environ)
            res = spawn.spawn_many([('guard', argv, env, self.ctx.paths.daemon_log, held)])
        finally:
            os.close(held)
        got = res.get('guard')
        if isinstance(got, tuple):
            self.fd, self.who = w, got
        else:
            os.close(w)

    def bye(self):
        """An orderly exit: the guard leaves without starting anything."""
        if self.fd is not None:
            try:
                os.write(self.fd, b'bye\n')
            except OSError:
                pass
        self.close()

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd, self.who = None, None

    def pid(self):
        return self.who[0] if self.who else None


def _watchable(ctx, calm, now, swept, got):
    """The drivers to watch if the daemon's only work is watching them now, else None."""
    try:
        conn = ctx.conn()
        watched = watch.targets(conn)
        calm.see(now, watched, swept, got)
        if not watched or len(watched) >= watch.MAX_WATCHED or not calm.ripe(now):
            return None
        # An autostop's idle clock and a kill deadline are the Python daemon's to watch.
        if db.get_meta(conn, 'autostop') or liveness.next_kill_deadline(conn) is not None:
            return None
    except Exception:
        return None
    return watched


def _to_watch(ctx, fd, guard, interval, rounds, watched, stop, woken):
    """Exec into the watch-mode sh (watch.py); returns the lock fd if we are still here."""
    if guard.fd is None or not guard.who or not watch.whole(guard.who[1]):
        return fd  # no guard to keep (or unknown who it is): nothing would revive the sh
    ctx.close()  # its descriptor must not sit where the lock and the pipe go
    if not watch.pin(fd, guard.fd):
        return fd
    fd, guard.fd = watch.LOCK_FD, watch.GUARD_FD
    if not stop and not woken:  # a wake or stop that came in since the sweep: stay
        # Ignored across the exec: at no moment does the pid in daemon.pid die of a wake's
        # USR1 (the sh cannot trap it then; it reads the wake file instead).
        handler = signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        # TERM: the handler's flag would not outlive the exec. So from the last look at `stop`
        # on, TERM has its default action (until the sh's trap: the README's known gap); a TERM
        # is never lost. Blocking runs a handler already due, so that look sees it.
        term = signal.getsignal(signal.SIGTERM)
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            if not stop and signal.SIGTERM not in signal.sigpending():
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                watch.exec_sh(ctx, interval, rounds, guard.who, watched)
        finally:
            signal.signal(signal.SIGTERM, term)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one held back: to the handler now
            signal.signal(signal.SIGUSR1, handler)
    return fd


def revive(ctx):
    """The guard saw the daemon die: start a new one if anything needs watching."""
    if ctx.has_db() and liveness.busy(ctx.conn(), time.time()):
        ensure(ctx)
    return 0


def main(ctx, argv):
    """`_daemon [--lock-fd N] [--wait] [--guard-fd N --guard-pid P --guard-start S] [--woke WHY]`:
    the last three only from the watch-mode sh (watch.py), which passes on what it kept."""
    opts, i = {}, 0
    while i < len(argv):
        if argv[i] == '--wait':
            opts['wait'] = True
            i += 1
        elif argv[i] in ('--lock-fd', '--guard-fd', '--guard-pid', '--guard-start', '--woke') and i + 1 < len(argv):
            opts[argv[i][2:]] = argv[i + 1]
            i += 2
        else:
            sys.stderr.write('_daemon: bad arguments %r\n' % (argv,))
            return 2
    num = lambda k: int(opts[k]) if opts.get(k, '').isdigit() else None
    who = (num('guard-pid'), num('guard-start'))
    return run(ctx, lock_fd=num('lock-fd'), wait=opts.get('wait', False), guard_fd=num('guard-fd'),
               guard_who=who if None not in who else None, woke=opts.get('woke'))


def run(ctx, lock_fd=None, wait=False, guard_fd=None, guard_who=None, woke=None):
    """The daemon's main loop. lock_fd: the daemon lock, already taken by whoever started us;
    wait: we replace an older daemon, which was asked to exit and will release the lock.
    guard_fd, guard_who, woke: back from watch mode, its guard pipe and why it came back."""
    paths = ctx.paths
    if lock_fd is not None:
        fd = lock_fd
        os.set_inheritable(fd, False)
        if not try_lock(fd):  # a no-op on the lock we were handed; refuses any other file
            return 0
    else:
        fd = open_lock(paths)
        deadline = time.time() + (10 if wait else 0)
        while not try_lock(fd):
            if time.time() >= deadline:
                return 0  # another daemon runs
            time.sleep(0.1)
    stop, woken = [], []
    # Signals only interrupt the wait (self-pipe); handlers, unlike ignored or blocked
    # signals, do not leak into the jobs this process starts.
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    signal.signal(signal.SIGUSR1, lambda *a: woken.append(1))
    me = procs.proc_stat(os.getpid())
    guard = Guard(ctx)
    if guard_fd is not None and guard_who:
        guard.adopt(guard_fd, guard_who)
    try:
        return _loop(ctx, fd, stop, woken, me, guard, woke)
    finally:
        guard.bye()  # also on a Python error: a crashing daemon is not restarted in a loop


def _wake_pipe():
    r, w = os.pipe()
    os.set_blocking(w, False)
    signal.set_wakeup_fd(w)
    return r, w


def _drop_wake_pipe(r, w):
    signal.set_wakeup_fd(-1)
    os.close(r)
    os.close(w)


def _loop(ctx, fd, stop, woken, me, guard, woke):
    paths = ctx.paths
    tmp = paths.daemon_pid + '.tmp'
    with open(tmp, 'w') as f:
        f.write('%d %s %s\n' % (os.getpid(), me.start if me else '-', VERSION))
    os.replace(tmp, paths.daemon_pid)
    interval = tick_interval()
    idle_exit = float(os.environ.get(IDLE_ENV) or 60.0)
    hold, rounds = watch.settings(interval)
    calm = watch.Calm(woke, hold) if watch.possible() else None
    idle_since = None
    idle = False
    r, w = _wake_pipe()
    try:
        while not stop:
            now = time.time()
            got = take_wake(paths) or bool(woken)  # a wake before this sweep: the sweep covers it
            del woken[:]
            try:
                guard.check()
            except Exception as e:  # no guard this tick: try again on the next one
                sys.stderr.write('%s guard start failed: %r\n' % (time.strftime('%F %T'), e))
                sys.stderr.flush()
            swept = None
            try:
                ctx.check_schema()
                swept = liveness.sweep(ctx)
                # A configured autostop keeps the daemon up: it is the one watching the clock.
                busy = liveness.busy(ctx.conn(), now) or autostop.check(ctx, now)
            except AgentError as e:
                if e.code in ('schema_too_new', 'schema_unknown'):
                    break  # a newer agent owns this base dir now
                busy = True
            except Exception as e:  # keep sweeping; a locked db or a bad row is transient
                sys.stderr.write('%s sweep failed: %r\n' % (time.strftime('%F %T'), e))
                sys.stderr.flush()
                ctx.close()
                busy = True
            try:
                stage.stage_pending(ctx)  # the next queued jobs' files, ahead of their release
            except Exception:  # only a head start: the launcher writes whatever is missing
                ctx.close()
            if busy:
                idle_since = None
            elif idle_since is None:
                idle_since = now
            elif now - idle_since >= idle_exit:
                idle = True
                break
            if calm is not None and swept is not None:
                watched = _watchable(ctx, calm, now, swept, got)
                if watched and not stop and not woken:
                    _drop_wake_pipe(r, w)
                    try:
                        fd = _to_watch(ctx, fd, guard, interval, rounds, watched, stop, woken)
                    except Exception as e:
                        sys.stderr.write('%s watch mode failed: %r\n' % (time.strftime('%F %T'), e))
                        sys.stderr.flush()
                    r, w = _wake_pipe()  # still here: the exec failed or a signal came in
                    calm.since = time.time()
            timeout = interval
            try:
                due = liveness.next_kill_deadline(ctx.conn())
                if due is not None:
                    timeout = max(0.0, min(interval, due - time.time()))
            except Exception:
                pass
            if not stop and not woken:
                try:
                    if select.select([r], [], [], timeout)[0]:
                        os.read(r, 512)
                except InterruptedError:
                    pass
    finally:
        if running_pid(paths) == os.getpid():
            try:
                os.unlink(paths.daemon_pid)
            except OSError:
                pass
        take_wake(paths)  # no daemon, no wake file (nothing left in a base dir being removed)
        os.close(fd)
        _drop_wake_pipe(r, w)
    # Work may have arrived between the last look and the lock release, from a caller that
    # saw the lock still held and so started no daemon: look once more, now unlocked.
    if idle:
        try:
            if liveness.busy(ctx.conn(), time.time()):
                ensure(ctx)
            else:
                cgroups.remove_root(paths.marker_prefix)
        except Exception:
            pass
    return 0
