"""Queued jobs' files written while they wait, so that a release creates (almost) none.

Each new file or directory costs 0.02-0.3 ms on ext4, and a job start needs four (jobs/N,
run.sh, logs/N, run.log): for 64 jobs released at once that was most of the release. So the
next jobs in line get them ahead, under their final names: a job a submit queued by serve
itself once the submit is answered (AfterSubmit), the ones the queue moves into line by
serve's stager processes (stager.py), and the daemon's tick's.

Written in place, so every step is safe to repeat and to race: directories and the empty log
are created if missing (never truncated); the stager that made a job's dir writes its scripts
as new files there, and anyone else renames a whole script over run.sh / setup.sh, so nothing
is ever truncated in place once bash could be reading it. The starter (scheduler.launch, right before
the job's driver starts) keeps a script only if it holds exactly this job's text, and
removes one of a phase the job lacks (a jobs.db replaced under an old jobs/ dir must not run
old scripts).
A pending job cancelled loses its files (it never ran, so they hold nothing of its own).
"""
import json
import os

from . import db, nodes, procs, resources
from .states import TERMINAL

# The jobs a release could start get staged: the next ones in line that fit in the whole
# cluster's CPUs at once (at most LIMIT); the ones behind them as the queue moves. Staging more
# is work nobody waits for, done while submits do (on two cores it cut their rate by a third).
LIMIT = 256
PHASES = ('setup', 'run')


def _texts(spec):
    """{file name: bytes} of the scripts a job runs."""
    out = {}
    for phase in PHASES:
        text = spec.get(phase)
        if text is not None and text.strip():
            out[phase + '.sh'] = text.encode('utf-8', 'surrogateescape')
    return out


def stage_pending(ctx, limit=LIMIT, stop=None, known=None):
    """Write the files of the next `limit` pending jobs that lack them; how many it wrote.
    stop: called between two jobs, True ends the work. known: a set the caller keeps between
    calls, of jobs found staged (a long queue is then not looked at again on every submit)."""
    conn = ctx.conn()
    paths = ctx.paths
    ids = next_in_line(conn, limit)
    if known is not None and len(known) > 4 * limit:
        known.intersection_update(ids)
    done = 0
    for job_id in ids:
        if stop is not None and stop():
            break
        if known is not None and job_id in known:
            continue
        if os.path.isdir(paths.job_dir(job_id)):
            if known is not None:
                known.add(job_id)
            continue  # staged, or being staged by another stager
        done += _stage_queued(conn, paths, job_id)
    return done


class AfterSubmit(object):
    """serve's staging of a job its submit queued, right after the answer when no request waits
    already: its files, if it is in line. A release right behind submits then finds every file
    there (the stagers, kicked by each submit, trail them by ~5 ms); a submit's answer is not
    delayed, nor a pipelined burst (serve leaves those jobs to the stagers).

    beyond: the last job found past the line. The next one submitted is past it too (the line
    only grows when jobs leave the queue or capacity grows), so it is not looked up again; a
    cancel or configure here forgets it, and a job ending elsewhere is the stagers' to catch."""

    def __init__(self):
        self.beyond = None

    def stage(self, ctx, job_id):
        if self.beyond is not None and job_id == self.beyond + 1:
            self.beyond = job_id
            return
        conn = ctx.conn()
        where = place(conn, job_id)
        self.beyond = job_id if where is False else None  # not if it left the queue meanwhile
        if where:
            _stage_queued(conn, ctx.paths, job_id)

    def forget(self):
        self.beyond = None


def _stage_queued(conn, paths, job_id):
    """1 if this wrote the files of a job still queued, else 0."""
    row = conn.execute("SELECT spec FROM jobs WHERE job_id = ? AND status = 'PENDING'",
                       (job_id,)).fetchone()
    try:
        if not row or not stage_one(paths, job_id, json.loads(row[0])):
            return 0
        done = 1
    except OSError:  # a full disk, say: the launcher writes what it needs, or says why not
        done = 0  # but its dir and scripts may be there
    # A cancel since the look above found nothing to remove: what we wrote is ours to.
    row = conn.execute('SELECT status, started_at FROM jobs WHERE job_id = ?', (job_id,)).fetchone()
    if row and row[0] in TERMINAL and row[1] is None:
        discard(paths, [job_id])
    return done


def _line_cpus(conn):
    """All the cluster's CPUs, for the line; 0 without a detected capacity for this boot in the
    cache (never a detection here: nvidia-smi can take a second), so the head of the queue alone."""
    boot = procs.boot_id()
    cached = db.get_meta(conn, 'detected_capacity') or {}
    if cached.get('boot_id') != boot or 'devices' not in cached:
        return 0.0
    return resources.capacity(conn, boot)[0]['cpus'] * nodes.count(db.get_meta(conn, 'cluster', {}) or {})


def place(conn, job_id, limit=LIMIT):
    """True: the job is one of next_in_line's; False: queued past them; None: not queued.
    Summed in SQLite (a submit asks each time: a Python loop over the line cost ~90 us with 64
    in it)."""
    n, used, last = conn.execute(
        "SELECT COUNT(*), TOTAL(cpus * COALESCE(num_nodes, 1)), MAX(job_id) FROM (SELECT job_id, cpus, "
        "num_nodes FROM jobs WHERE status = 'PENDING' AND job_id <= ? ORDER BY job_id LIMIT ?)",
        (job_id, limit + 1)).fetchone()
    if last != job_id:
        return None if n <= limit else False  # past LIMIT queued jobs, it may be there unseen
    return n == 1 or (n <= limit and used <= _line_cpus(conn) + resources.EPS)


def next_in_line(conn, limit=LIMIT):
    """The pending jobs, in order, that would start if every CPU of the cluster were free
    (the first always; a job's CPUs count once per node it takes)."""
    cap = _line_cpus(conn)
    out, used = [], 0.0
    for job_id, cpus, k in conn.execute(
            "SELECT job_id, cpus, num_nodes FROM jobs WHERE status = 'PENDING' ORDER BY job_id "
            'LIMIT ?', (limit,)):
        used += (cpus or 0.0) * (k or 1)
        if out and used > cap + resources.EPS:
            break
        out.append(job_id)
    return out


def stage_one(paths, job_id, spec):
    """A pending job's files, the empty log last. Only by the stager that creates its dir: two
    stagers (serve's and the daemon's) never do one job twice. False if another one did."""
    try:
        os.mkdir(paths.job_dir(job_id), 0o700)
    except FileExistsError:
        return False
    for name, data in _texts(spec).items():
        _create(os.path.join(paths.job_dir(job_id), name), data)
    _mkdir(paths.log_dir(job_id))
    # Non-blocking: a FIFO put there (no reader) fails at once instead of holding serve for good.
    os.close(os.open(paths.log_file(job_id), os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK |
                     getattr(os, 'O_CLOEXEC', 0), 0o600))
    return True


def write(paths, job_id, spec):
    """What a job's start needs on disk (its dir and scripts, its log dir), right before its
    driver starts: what is staged and exactly right is kept, the rest written."""
    d = paths.job_dir(job_id)
    # A look first: mkdir locks the parent (jobs/, logs/) even to find the directory there,
    # which the stagers (and other intermediates, without the waiter) wait on.
    if not os.path.isdir(d):
        _mkdir(d)
    texts = _texts(spec)
    for name in (phase + '.sh' for phase in PHASES):
        path = os.path.join(d, name)
        if name not in texts:
            try:  # a phase this job lacks: nothing of another job's may run as it
                os.unlink(path)
            except FileNotFoundError:
                pass
        elif not _holds(path, texts[name]):
            _replace(path, texts[name])
    if not os.path.isdir(paths.log_dir(job_id)):
        _mkdir(paths.log_dir(job_id))


def _mkdir(path):
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except FileNotFoundError:
        os.makedirs(path, 0o700, exist_ok=True)


def _holds(path, data):
    try:  # os-level: the io stack's open costs more than the read (64 jobs in a release)
        fd = os.open(path, os.O_RDONLY | getattr(os, 'O_CLOEXEC', 0))
    except OSError:
        return False
    try:
        return os.read(fd, len(data) + 1) == data
    except OSError:
        return False
    finally:
        os.close(fd)


def _create(path, data):
    """A new file in a dir this stager just made: written in place (no temporary name, one
    inode and no rename fewer per job). Nothing truncates it, so once whole it stays whole; a
    part left by a stager killed mid-write fails the launcher's exact comparison and is replaced
    by rename."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, 'O_CLOEXEC', 0), 0o600)
    except FileExistsError:  # the launcher got there first: its rename is whole already
        return
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _replace(path, data):
    tmp = '%s.%d.%s.tmp' % (path, os.getpid(), os.urandom(4).hex())  # unique to this writer
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, 'O_CLOEXEC', 0), 0o600)
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
        os.rename(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def discard(paths, job_ids):
    """The files of jobs cancelled before they started."""
    for job_id in job_ids:
        for d in (paths.job_dir(job_id), paths.log_dir(job_id)):
            _remove(d)


def _remove(path):
    """rm -r, quietly, never following a symlink (not shutil: its import alone is ~2 ms of
    every short agent call)."""
    try:
        if os.path.islink(path):
            os.unlink(path)
            return
        entries = list(os.scandir(path))
    except OSError:
        return
    for e in entries:
        try:
            if e.is_dir(follow_symlinks=False):
                _remove(e.path)
            else:
                os.unlink(e.path)
        except OSError:
            pass
    try:
        os.rmdir(path)
    except OSError:
        pass
