"""Starting a batch of job drivers through the waiter's --launch mode (native/skydeck_launch.c).

spawn_many forks intermediates of this process to start drivers in parallel; each fork of a
~20 MB interpreter then pays copy-on-write faults, and each posix_spawn and /proc read costs
Python time: ~0.3 ms of CPU per job, on the cores the released jobs' shells need. Here one small
static process gets the prepared jobs over a pipe as they are made ready, forks and execs each
(in its own session, its log as stdout and stderr) and answers with its pid and start time.
The drivers are its children, never this process's, and are re-parented when it ends.
"""
import errno
import os
import select

from .procs import reset_child_signals
from .spawn import spawn_many

MAX_RECORD = 1 << 22  # the launcher's buffer; more than exec takes anyway (E2BIG)
MAX_STRINGS = 1 << 16


def launch_many(launcher, items, prepare):
    """spawn_many's contract (items [(key, argv, env, out_path)], prepare, the result) through
    `launcher` (the waiter binary); spawn_many itself when the launcher cannot be started."""
    if not items:
        return {}
    try:
        proc = _Launcher(launcher)
    except OSError:
        return spawn_many(items, prepare)
    out, notes = {}, {}
    try:
        for item in items:
            key = item[0]
            try:
                made = prepare(key) if prepare is not None else None
            except Exception as e:
                out[key] = 'could not prepare the job: %s' % _one_line(e)
                continue
            argv, env = (made[0], made[1]) if made is not None else (item[1], item[2])
            if made is not None and len(made) > 2 and made[2]:
                notes[key] = made[2]
            record = _record(key, item[3], argv, env)
            if isinstance(record, str):
                out[key] = 'could not start the driver: ' + record
            else:
                proc.send(record)
    finally:
        lines, status = proc.finish()
    return _results(items, out, notes, lines, status)


def _record(key, log, argv, env):
    """The launcher's record of one job, or why there is none."""
    strings = [key, log] + list(argv) + [''] + ['%s=%s' % kv for kv in env.items()]
    if not argv or any(not a for a in argv) or any('\0' in s for s in strings):
        return 'an empty argument or a NUL byte in its command or environment'
    body = b''.join(os.fsencode(s) + b'\0' for s in strings)
    if len(body) > MAX_RECORD or len(strings) > MAX_STRINGS:
        return os.strerror(errno.E2BIG)
    return b'%08x' % len(body) + body


class _Launcher(object):
    """The launcher process: records written as it takes them, its answers read meanwhile (so
    neither side can block on a full pipe)."""

    def __init__(self, path):
        rec_r, self.rec_w = os.pipe()
        self.res_r, res_w = os.pipe()
        try:
            self.pid = os.posix_spawn(path, [path, '--launch'], {}, setsigdef=reset_child_signals(),
                                      file_actions=[(os.POSIX_SPAWN_DUP2, rec_r, 0),
                                                    (os.POSIX_SPAWN_DUP2, res_w, 1),
                                                    (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)])
        except BaseException:
            for fd in (self.rec_w, self.res_r):
                os.close(fd)
            raise
        finally:
            os.close(rec_r)
            os.close(res_w)
        os.set_blocking(self.rec_w, False)
        self.chunks = []

    def send(self, data):
        view = memoryview(data)
        while view and self.rec_w is not None:
            readable, writable, _ = select.select([self.res_r], [self.rec_w], [])
            if readable:
                self._read()
            if writable:
                try:
                    view = view[os.write(self.rec_w, view):]
                except BrokenPipeError:  # it ended: finish() says which jobs it answered
                    self._close_input()

    def _read(self):
        b = os.read(self.res_r, 65536)
        if b:
            self.chunks.append(b)
        return b

    def _close_input(self):
        if self.rec_w is not None:
            os.close(self.rec_w)
            self.rec_w = None

    def finish(self):
        """Its answer lines and exit status, once it ended (it does at its input's end)."""
        self._close_input()
        while self._read():
            pass
        os.close(self.res_r)
        status = os.waitpid(self.pid, 0)[1]
        return b''.join(self.chunks).decode('utf-8', 'replace').splitlines(), status


def _results(items, out, notes, lines, status):
    started, failed = {}, {}
    for line in lines:
        key, pid, rest = (line.split(' ', 2) + ['', ''])[:3]
        if pid == '0':  # the child's own report of its failure wins over its pid line
            code, _, what = rest.partition(' ')
            n = int(code[1:]) if code[1:].isdigit() else 0
            failed[key] = ('cannot open its log: ' if what == 'log' else '') + '[Errno %d] %s' % (n, os.strerror(n))
        elif pid.isdigit():
            started[key] = (int(pid), int(rest) if rest.isdigit() else None)
    for item in items:
        key = item[0]
        if key in out:
            continue
        if key in failed:
            out[key] = 'could not start the driver: ' + failed[key]
        elif key in started:
            out[key] = started[key] + ((notes[key],) if key in notes else ())
        else:
            out[key] = 'could not start the driver: the launcher ended first (status %d)' % status
    return out


def _one_line(e):
    return str(e).replace('\n', ' ')[:200]
