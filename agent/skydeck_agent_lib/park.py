"""Drivers started ahead for the next queued jobs ("parked"), so that a release is a byte a job.

Why: a release of 64 queued jobs otherwise makes each one ready (cgroup, files, environment)
and forks and execs its driver on the cores the jobs' own shells need: ~0.5 ms of CPU a job,
a third of what the release costs besides the jobs themselves.

<base>/parked/N is a FIFO that job N's parked driver holds open for reading; N.info says what it
was made for ("INODE DIGEST TOKEN", by the parker; the driver gets TOKEN in its environment and
joins only that parking) and who it is (" PID START", appended by the driver before it opens the
FIFO: a reader found means its line is there). The driver is the waiter in --driver mode with
_SKYDECK_PARK set to the FIFO: it waits there before it touches anything of the job
(native/skydeck_park.c). serve's stagers park the next jobs in line (stage.py) once the queue is
quiet (stager.py).

Release (scheduler.launch, once the claim committed): open the FIFO for writing (no reader: the
driver is gone or not there yet), check that the info names this FIFO and the digest of exactly
the start the job would get now (anything changed since parking, such as the client's
environment, the cluster's settings or its cgroup, and the parked driver is not used), write
'g'. The job's driver is then the parked process: its pid and start time are recorded as any
driver's. Dismissal: the writer closing without a byte, or the FIFO removed (the driver looks
every 5 s). A queued job that ends without a release (cancelled, failed at its claim) has its
parked driver dismissed by the sweep.

Only jobs the waiter drives alone are parked: the head node only, no setup, no accelerators,
no secrets (their values stay out of a process that may wait long before it runs).
"""
import fcntl
import hashlib
import json
import os

from . import cgroups, db, devices, driver, launcher, procs, resources, stage
from .states import TERMINAL, sql_list

LIMIT = 64  # parked drivers at once: each is a few pages, and a release of more starts the rest


def folder(paths):
    return os.path.join(paths.base, 'parked')


def _fifo(paths, job_id):
    return os.path.join(folder(paths), str(job_id))


def eligible(spec, num_nodes=1):
    return (num_nodes or 1) == 1 and not (spec.get('setup') or '').strip() and \
        not spec['resources'].get('accelerators') and not spec.get('secret_names')


def identity(db_id, waiter):
    """The database and the waiter binary a start is made with (a waiter replaced in place by
    an upgrade is another one)."""
    try:
        st = os.stat(waiter)
        return '%s %d %d' % (db_id, st.st_ino, st.st_mtime_ns)
    except OSError:
        return '%s -' % db_id


def digest(ident, log, argv, env):
    """Of everything a driver start is made of (ident: identity()); the parking's own aside."""
    h = hashlib.sha256()
    parts = [ident, log] + list(argv) + ['%s=%s' % kv for kv in sorted(env.items())
                                              if not kv[0].startswith('_SKYDECK_PARK')]
    h.update('\0'.join(parts).encode('utf-8', 'surrogateescape'))
    return h.hexdigest()


def parked_ids(paths):
    """The jobs with a FIFO in parked/ (one listdir)."""
    try:
        return set(int(n) for n in os.listdir(folder(paths)) if n.isdigit())
    except OSError:
        return set()


def release(paths, wants):
    """{job id: (pid, start)} of the parked drivers now released, of the jobs in wants
    ({job id: digest() of the start it gets now}); the others' are dismissed.

    All are looked at before the first byte is written: once released, a job's shell competes
    with this process for the CPU, so the bytes go out in one tight loop."""
    ready, out = [], {}
    for job_id, want in wants.items():
        try:  # ENOENT: none; ENXIO: no reader (the driver is gone, or not there yet)
            fd = os.open(_fifo(paths, job_id), os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            _remove(paths, job_id)
            continue
        info = _info(paths, job_id)
        if info is not None and info[0] == os.fstat(fd).st_ino and info[1] == want:
            ready.append((job_id, fd, info))
        else:  # closing without a byte dismisses it
            _remove(paths, job_id)
            os.close(fd)
    for job_id, fd, info in ready:
        try:
            os.write(fd, b'g')
            out[job_id] = info[2], info[3]
        except OSError:  # EPIPE: it left just now
            pass
    for job_id, fd, _ in ready:
        _remove(paths, job_id)  # after the byte: a driver finding its FIFO gone reads once more
        os.close(fd)
    return out


def dismiss(paths, job_ids):
    """Parked drivers of these jobs leave now (a job that will not start through them)."""
    for job_id in job_ids:
        try:
            fd = os.open(_fifo(paths, job_id), os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            fd = None
        _remove(paths, job_id)
        if fd is not None:
            os.close(fd)  # its last writer gone without a byte: the driver's hang-up


def sweep(paths, conn):
    """Dismiss what is parked for jobs that are no longer queued."""
    try:
        names = os.listdir(folder(paths))
    except OSError:
        return
    ids = set(int(n.partition('.')[0]) for n in names if n.partition('.')[0].isdigit())
    if not ids:
        return
    ids = sorted(ids)
    queued = set(r[0] for r in conn.execute(
        "SELECT job_id FROM jobs WHERE status = 'PENDING' AND job_id IN (%s)" % ','.join('?' * len(ids)), ids))
    dismiss(paths, [j for j in ids if j not in queued])


def _remove(paths, job_id):
    for p in (_fifo(paths, job_id), _fifo(paths, job_id) + '.info'):
        try:
            os.unlink(p)
        except OSError:
            pass


def _info(paths, job_id):
    """(inode, digest, pid, start) once the driver added itself, else None."""
    try:
        with open(_fifo(paths, job_id) + '.info') as f:
            ino, want, _, pid, start = f.read().split()
        return int(ino), want, int(pid), (None if start == '-' else int(start))
    except (OSError, ValueError):
        return None


def setting(ctx):
    """What every parked start shares (as scheduler.launch makes it), or None where nothing may
    be parked: no waiter, or no detected capacity for this boot (detection is never run here)."""
    conn, paths = ctx.conn(), ctx.paths
    waiter = driver.waiter(ctx.agent_path)
    boot = procs.boot_id()
    cached = db.get_meta(conn, 'detected_capacity') or {}
    if not waiter or cached.get('boot_id') != boot or 'devices' not in cached:
        return None
    cap, _, detected = resources.capacity(conn, boot, with_devices=True)
    db_id = db.get_meta(conn, 'db_id') or ''
    return {'waiter': waiter, 'ident': identity(db_id, waiter), 'cluster': db.get_meta(conn, 'cluster', {}) or {},
            'base': driver.base_env(paths, ctx.client),
            'dev_env': devices.env_for(devices.pools(cap.get('accelerators'), detected), [], None),
            'tag': cgroups.db_tag(db_id)}


def park_next(ctx, ids, limit=LIMIT):
    """Park drivers for the queued jobs in ids (in line order) that have none, up to `limit`
    parked in all; how many it parked. One parker at a time (a lock on parked/): two stagers
    counting at once would both fill the room."""
    try:
        os.mkdir(folder(ctx.paths), 0o700)
    except FileExistsError:
        pass
    fd = os.open(folder(ctx.paths), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return _park_next(ctx, ids, limit)
    finally:
        os.close(fd)


def _park_next(ctx, ids, limit):
    paths, conn = ctx.paths, ctx.conn()
    have = parked_ids(paths)
    room = limit - len(have)
    todo = [j for j in ids if j not in have]
    if room <= 0 or not todo:
        return 0
    s = setting(ctx)
    if s is None:
        return 0
    items = []
    for job_id in todo:
        if len(items) >= room:
            break
        row = conn.execute("SELECT spec, submitted_at, num_nodes FROM jobs WHERE job_id = ? AND "
                           "status = 'PENDING'", (job_id,)).fetchone()
        if not row:
            continue
        spec = json.loads(row[0])
        cwd, problem = driver.resolve_workdir(spec.get('workdir'))
        if problem or not eligible(spec, row[2]):
            continue
        stage.write(paths, job_id, spec)
        cg = cgroups.plan(paths.marker_prefix, '%s-%d' % (s['tag'], job_id))[1]
        env = driver.job_env(s['base'], paths, ctx.agent_path, job_id, spec, s['cluster'],
                             driver.task_stamp(row[1]), cwd, [0], cg, {}, s['dev_env'])
        argv = driver.driver_argv(job_id, env, spec)
        fifo = _fifo(paths, job_id)
        try:
            os.mkfifo(fifo, 0o600)
        except FileExistsError:
            continue  # parked by another stager
        log, token = paths.log_file(job_id), os.urandom(8).hex()
        try:
            with open(fifo + '.info', 'w') as f:
                f.write('%d %s %s' % (os.stat(fifo).st_ino, digest(s['ident'], log, argv, env), token))
        except OSError:
            dismiss(paths, [job_id])
            continue
        env['_SKYDECK_PARK'], env['_SKYDECK_PARK_TOKEN'] = fifo, token
        items.append((str(job_id), argv, env, log))
    started = launcher.launch_many(s['waiter'], items, None) if items else {}
    failed = [int(key) for key, res in started.items() if not isinstance(res, tuple)]
    failed += [int(item[0]) for item in items if item[0] not in started]
    dismiss(paths, failed)
    # A release since the look above found no driver here and started the job otherwise:
    # nothing may stay parked for it. A cancel since then removed the files it had; what
    # stage.write made again here goes (as in stage.stage_pending).
    sweep(paths, conn)
    ids = [int(item[0]) for item in items]
    if ids:
        gone = [r[0] for r in conn.execute(
            'SELECT job_id FROM jobs WHERE started_at IS NULL AND status IN (%s) AND job_id IN (%s)'
            % (sql_list(TERMINAL), ','.join('?' * len(ids))), ids)]
        stage.discard(paths, gone)
    return len(items) - len(failed)
