"""The liveness sweep (`tick`, and the daemon every few seconds).

A non-terminal job whose driver is gone, whose driver pid now belongs to another process, or
that was submitted or started before the node's current boot is FAILED_DRIVER, with the reason;
whatever is left of it is killed. Overdue cancel escalations are done here too, as a backstop.
"""
import signal
import time

from . import daemon_ctl, db, procs, scheduler
from .job_cgroups import remove_cgroups
from .job_kill import remote_problems
from .states import ACTIVE, NON_TERMINAL, sql_list


def _reason(status, pid, start, job_boot, started_at, boot, now):
    """Why this non-terminal job's driver is gone, or None while it looks alive."""
    if job_boot and not procs.same_boot(job_boot, boot):
        kernel = boot.partition(procs.CONTAINER_SEP)[0]
        if job_boot.partition(procs.CONTAINER_SEP)[0] != kernel:
            return 'the node restarted (boot id changed) while the job was %s' % status
        return ('the container restarted (stopped, e.g. by a reboot of its node or outside '
                'Skydeck, and started again) while the job was %s' % status)
    if status not in ACTIVE:
        return None
    if not pid:
        if now - (started_at or now) > scheduler.CLAIM_TIMEOUT:
            return ('no driver was recorded for it: the agent, or its launcher, ended while '
                    'starting it')
        return None
    st = procs.proc_stat(pid)
    if procs.gone(st):
        return ('the driver (pid %d) died without reporting: killed, e.g. by the '
                'out-of-memory killer' % pid)
    if start is not None and st.start != start:
        return 'the driver (pid %d) is gone and its pid now belongs to another process' % pid
    return None


def sweep(ctx):
    conn = ctx.conn()
    boot = procs.boot_id()
    now = time.time()
    rows = conn.execute(
        'SELECT job_id, status, driver_pid, driver_start, boot_id, started_at, cgroup FROM jobs '
        'WHERE status IN (%s)' % sql_list(NON_TERMINAL)).fetchall()
    dead = []
    for job_id, status, pid, start, job_boot, started_at, cg in rows:
        reason = _reason(status, pid, start, job_boot, started_at, boot, now)
        if reason:
            dead.append((job_id, reason, pid, start, job_boot, cg))
    failed = []
    if dead:
        with db.write_txn(conn) as txn:
            for job_id, reason, pid, start, job_boot, cg in dead:
                # Conditional: a driver that reported in the meantime wins.
                if db.advance(conn, txn, job_id, 'FAILED_DRIVER', reason=reason, now=now):
                    failed.append((job_id, pid, start, job_boot, cg))
        # Leftovers: by cgroup, else by marker (the driver itself is gone, so its group is
        # never trusted).
        procs.kill_jobs(ctx.paths.marker_prefix, failed, signal.SIGKILL, boot)
        remote_problems(ctx, [f[0] for f in failed], signal.SIGKILL)
    escalated = escalate_overdue(ctx, now, boot)
    started = scheduler.step(ctx)
    remove_cgroups(ctx)
    return {'failed': [f[0] for f in failed], 'escalated': escalated, 'started': started}


def on_read(ctx):
    """Before a read (queue, status, logs) answers: never report a dead job as running.

    Cheap while the daemon runs: its pid file, then one /proc read per running job; the full
    sweep only when a driver is found dead. With no daemon, nobody has been watching: the full
    sweep now, and the daemon is started again.
    """
    if not ctx.has_db():
        return
    conn = ctx.conn()
    now = time.time()
    if daemon_ctl.running_pid(ctx.paths) is None:
        if busy(conn, now):
            sweep(ctx)
            daemon_ctl.ensure(ctx)
        return
    boot = procs.boot_id()
    rows = conn.execute(
        'SELECT status, driver_pid, driver_start, boot_id, started_at FROM jobs '
        'WHERE status IN (%s)' % sql_list(ACTIVE)).fetchall()
    if any(_reason(r[0], r[1], r[2], r[3], r[4], boot, now) for r in rows):
        sweep(ctx)


def escalate_overdue(ctx, now, boot):
    conn = ctx.conn()
    rows = conn.execute(
        "SELECT job_id, driver_pid, driver_start, boot_id, cgroup FROM jobs WHERE status = 'CANCELLED' "
        'AND kill_done = 0 AND kill_deadline IS NOT NULL AND kill_deadline <= ?',
        (now,)).fetchall()
    if not rows:
        return []
    procs.kill_jobs(ctx.paths.marker_prefix, rows, signal.SIGKILL, boot)
    ids = [r[0] for r in rows]
    remote_problems(ctx, ids, signal.SIGKILL)
    with db.write_txn(conn):
        conn.execute('UPDATE jobs SET kill_done = 1 WHERE job_id IN (%s)' %
                     ','.join('?' * len(ids)), ids)
    return ids


def next_kill_deadline(conn):
    return conn.execute("SELECT MIN(kill_deadline) FROM jobs WHERE status = 'CANCELLED' AND "
                        'kill_done = 0 AND kill_deadline IS NOT NULL').fetchone()[0]


def busy(conn, now):
    """Anything for the daemon to watch: non-terminal jobs or escalations still to do."""
    if conn.execute('SELECT 1 FROM jobs WHERE status IN (%s) LIMIT 1' %
                    sql_list(NON_TERMINAL)).fetchone():
        return True
    return conn.execute("SELECT 1 FROM jobs WHERE status = 'CANCELLED' AND kill_done = 0 AND "
                        'kill_deadline IS NOT NULL LIMIT 1').fetchone() is not None
