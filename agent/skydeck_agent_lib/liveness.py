"""The liveness sweep (`tick`, and the daemon every few seconds).

A non-terminal job whose driver is gone, whose driver pid now belongs to another process, or
that was submitted or started before the node's current boot is FAILED_DRIVER, with the reason;
whatever is left of it is killed. Overdue cancel escalations are done here too, as a backstop.
"""
import signal
import time

from . import db, procs, scheduler
from .cancel import remote_problems
from .states import ACTIVE, NON_TERMINAL, sql_list


def sweep(ctx):
    conn = ctx.conn()
    boot = procs.boot_id()
    now = time.time()
    rows = conn.execute(
        'SELECT job_id, status, driver_pid, driver_start, boot_id, started_at FROM jobs '
        'WHERE status IN (%s)' % sql_list(NON_TERMINAL)).fetchall()
    dead = []
    for job_id, status, pid, start, job_boot, started_at in rows:
        reason = None
        if job_boot and job_boot != boot:
            reason = 'the node restarted (boot id changed) while the job was %s' % status
        elif status in ACTIVE:
            if not pid:
                if now - (started_at or now) > scheduler.CLAIM_TIMEOUT:
                    reason = 'the driver never started (the starting agent died)'
            else:
                st = procs.proc_stat(pid)
                if procs.gone(st):
                    reason = ('the driver (pid %d) died without reporting: killed, e.g. by the '
                              'out-of-memory killer' % pid)
                elif start is not None and st.start != start:
                    reason = 'the driver (pid %d) is gone and its pid now belongs to another ' \
                             'process' % pid
        if reason:
            dead.append((job_id, reason, pid, start, job_boot))
    failed = []
    if dead:
        with db.write_txn(conn) as txn:
            for job_id, reason, pid, start, job_boot in dead:
                # Conditional: a driver that reported in the meantime wins.
                if db.advance(conn, txn, job_id, 'FAILED_DRIVER', reason=reason, now=now):
                    failed.append((job_id, pid, start, job_boot))
        # Leftovers: by marker (the driver itself is gone, so its group is never trusted).
        procs.kill_jobs(ctx.paths.marker_prefix, failed, signal.SIGKILL, boot)
        remote_problems(ctx, [f[0] for f in failed], signal.SIGKILL)
    escalated = escalate_overdue(ctx, now, boot)
    started = scheduler.step(ctx)
    return {'failed': [f[0] for f in failed], 'escalated': escalated, 'started': started}


def escalate_overdue(ctx, now, boot):
    conn = ctx.conn()
    rows = conn.execute(
        "SELECT job_id, driver_pid, driver_start, boot_id FROM jobs WHERE status = 'CANCELLED' "
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
