"""What callers need of the liveness daemon (daemon.py): start it if it is not running,
wake it, find its pid. Small and low in the layering, so that every command can keep the
daemon alive without importing its main loop."""
import fcntl
import os
import signal

from . import VERSION
from . import driver, procs, spawn


def _read_pidfile(paths):
    try:
        with open(paths.daemon_pid) as f:
            pid, start, version = f.read().split()[:3]
        return int(pid), (int(start) if start.isdigit() else start), version
    except (OSError, ValueError):
        return None


def running_pid(paths):
    info = _read_pidfile(paths)
    if info and procs.is_same_process(info[0], info[1]):
        return info[0]
    return None


def open_lock(paths):
    return os.open(paths.daemon_lock, os.O_RDWR | os.O_CREAT | getattr(os, 'O_CLOEXEC', 0), 0o600)


def try_lock(fd):
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except (BlockingIOError, PermissionError):
        return False


def ensure(ctx):
    """Start the daemon unless one of this version runs (cheap: one flock attempt).

    The caller takes the daemon lock itself and hands the locked descriptor to the new daemon
    (as fd 3), so there is no moment in which a second caller could also find the lock free
    and start a second daemon.
    """
    paths = ctx.paths
    fd = open_lock(paths)
    try:
        if try_lock(fd):
            # Above 3, so that handing it over as fd 3 is a real dup (which clears CLOEXEC).
            held = fcntl.fcntl(fd, getattr(fcntl, 'F_DUPFD_CLOEXEC', fcntl.F_DUPFD), 10)
            os.set_inheritable(held, False)
            try:
                _spawn(ctx, ['--lock-fd', '3'], held)
            finally:
                os.close(held)
            return
        info = _read_pidfile(paths)
        if not info or info[2] == VERSION:
            return
        # An older agent's daemon: ask it to leave; the new one waits for the lock.
        if procs.is_same_process(info[0], info[1]):
            try:
                os.kill(info[0], signal.SIGTERM)
            except OSError:
                pass
        _spawn(ctx, ['--wait'], None)
    finally:
        os.close(fd)  # the lock stays with the daemon's copy of the descriptor


def _spawn(ctx, extra, fd):
    paths = ctx.paths
    _rotate(paths.daemon_log)
    argv = ctx.self_argv('_daemon', *extra)
    env = driver.filtered_environ(os.environ)
    item = ('daemon', argv, env, paths.daemon_log)
    spawn.spawn_many([item + (fd,) if fd is not None else item])


TICK_ENV = 'SKYDECK_TICK_INTERVAL'  # seconds between the daemon's sweeps (default 2)


def tick_interval():
    try:
        return float(os.environ.get(TICK_ENV) or 2.0)
    except ValueError:
        return 2.0


def wake(paths, urgent=True):
    """Make the daemon look at jobs.db: a new kill deadline, new drivers to watch, an autostop
    setting. The wake file is seen by its next sweep (Python) or round (the watch-mode sh, which
    has USR1 ignored), within a tick. urgent: the Python daemon also gets USR1 to look at once
    (not for a release of many jobs, whose start it would slow down for nothing). The signal
    goes only to the recorded daemon, through a pidfd (a reused pid cannot get it), and only
    while that process catches or ignores USR1: a wake never kills anything."""
    info = _read_pidfile(paths)
    if not info or info[0] == os.getpid():
        return
    pidfd = _pidfd_open(info[0])
    try:
        # After the pidfd is open: the process it pins is the one recorded.
        if not procs.is_same_process(info[0], info[1]):
            return
        _touch(paths.daemon_wake)  # only while a daemon lives: it removes the file as it reads it
        # A daemon removes daemon.pid, then daemon.wake, as it exits: if it did so since the
        # look above, the file is ours to remove (a new daemon sweeps first thing anyway).
        now = _read_pidfile(paths)
        if not now or now[:2] != info[:2]:
            take_wake(paths)
            return
        if not urgent or (procs.HAVE_PROC and not usr1_harmless(info[0])):
            return
        try:
            if pidfd is not None:
                signal.pidfd_send_signal(pidfd, signal.SIGUSR1)
            else:
                os.kill(info[0], signal.SIGUSR1)
        except OSError:
            pass
    finally:
        if pidfd is not None:
            os.close(pidfd)


def take_wake(paths):
    """The daemon's side: True if a wake came since the last look (the file is removed)."""
    try:
        os.unlink(paths.daemon_wake)
        return True
    except OSError:
        return False


def usr1_harmless(pid):
    """True when pid catches or ignores USR1 (/proc/PID/status), so the signal cannot kill it."""
    bit = 1 << (signal.SIGUSR1 - 1)
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith(('SigCgt:', 'SigIgn:')) and int(line.split()[1], 16) & bit:
                    return True
    except (OSError, ValueError, IndexError):
        pass
    return False


def _pidfd_open(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None  # Python < 3.9, a kernel < 5.3, or gone already: plain kill after the checks


def _touch(path):
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, 'O_CLOEXEC', 0), 0o600))
    except OSError:
        pass


def _rotate(path, limit=1 << 20):
    try:
        if os.path.getsize(path) > limit:
            os.replace(path, path + '.1')
    except OSError:
        pass
