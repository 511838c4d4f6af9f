"""Job logs: append-only bytes, read by offset; follow until the job is terminal.

Bytes are never decoded: progress bars with \\r and invalid UTF-8 arrive exactly as written.
The end of a follow is decided by reading the status first and draining the file after: the
driver reports only after the user's processes exited, so everything is in the file by then.
"""
import os
import time

from .errors import AgentError, bad_args
from .liveness import on_read
from .states import TERMINAL

CHUNK = 512 * 1024


def parse_args(args):
    job_id = args.get('job_id')
    if isinstance(job_id, str) and job_id.isdigit():
        job_id = int(job_id)
    if isinstance(job_id, bool) or not isinstance(job_id, int) or job_id < 1:
        raise bad_args('job_id must be a positive integer')
    offset = args.get('offset', 0) or 0
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise bad_args('offset must be a non-negative integer (bytes)')
    follow = args.get('follow', False)
    if not isinstance(follow, bool):
        raise bad_args('follow must be true or false')
    rank = args.get('rank', 0) or 0
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
        raise bad_args('rank must be a non-negative integer (0 is the job log)')
    return job_id, offset, follow, rank


def job_state(conn, job_id):
    row = conn.execute('SELECT status, exit_code, reason FROM jobs WHERE job_id = ?',
                       (job_id,)).fetchone()
    if row is None:
        raise AgentError('not_found', 'no such job: %d' % job_id, {'job_ids': [job_id]})
    return {'status': row[0], 'exit_code': row[1], 'reason': row[2]}


class Watch(object):
    """A follow of a running job checks liveness itself now and then: if the daemon and the
    job's driver both died, the follow still ends, with FAILED_DRIVER."""
    EVERY = 5.0

    def __init__(self):
        self.last = time.time()

    def due(self, ctx):
        now = time.time()
        if now - self.last >= self.EVERY:
            self.last = now
            try:
                on_read(ctx)
            except Exception:
                pass  # a busy database: the daemon or the next look catches it


class Reader(object):
    """Reads one job's log from an offset; the file may not exist yet (job still pending)."""

    def __init__(self, paths, job_id, offset, rank=0):
        # Rank 0's output is the job log; the other ranks of a gang job each have their own.
        self.path = paths.log_file(job_id) if not rank else \
            os.path.join(paths.log_dir(job_id), 'rank-%d.log' % rank)
        self.offset = offset
        self.fd = None

    def read(self, limit=CHUNK):
        if self.fd is None:
            try:
                self.fd = os.open(self.path, os.O_RDONLY | getattr(os, 'O_CLOEXEC', 0))
            except OSError:
                return b''
        data = os.pread(self.fd, limit, self.offset)
        self.offset += len(data)
        return data

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def final(job_id, reader, state, **extra):
    out = {'job_id': job_id, 'offset': reader.offset, 'status': state['status'],
           'exit_code': state['exit_code'], 'reason': state['reason'],
           'terminal': state['status'] in TERMINAL}
    out.update(extra)
    return out


def cli_logs(ctx, args, out_fd):
    """CLI mode: raw bytes to out_fd; returns the final status object."""
    job_id, offset, follow, rank = parse_args(args)
    on_read(ctx)
    conn = ctx.conn()
    state = job_state(conn, job_id)
    reader = Reader(ctx.paths, job_id, offset, rank)
    watch = Watch()
    idle = 0.02
    try:
        while True:
            if follow:
                watch.due(ctx)
                state = job_state(conn, job_id)
            got = _drain(reader, out_fd)
            if not follow or state['status'] in TERMINAL:
                return final(job_id, reader, state)
            idle = 0.02 if got else min(idle * 1.5, 0.25)
            time.sleep(idle)
    finally:
        reader.close()


def _drain(reader, out_fd):
    got = 0
    while True:
        data = reader.read()
        if not data:
            return got
        got += len(data)
        view = memoryview(data)
        while view:
            n = os.write(out_fd, view)
            view = view[n:]
