"""Cancel: SIGTERM to the job's process group and its escaped processes, SIGKILL after grace.

The SIGKILL escalation is the daemon's job: the deadline is in jobs.db and the daemon is woken
to sleep until it, so it happens even if the client disconnects right after the answer, and
cancel itself forks nothing (the freed slots are handed out first).
"""
import signal
import time

from . import daemon_ctl, db, park, procs, scheduler, stage
from .errors import AgentError, bad_args
from .job_ids import parse_job_ids
from .job_kill import flag_cancelled, remote_problems
from .states import ACTIVE, NON_TERMINAL, TERMINAL, sql_list

DEFAULT_GRACE = 10.0
MAX_GRACE = 24 * 3600.0


def cancel(ctx, args):
    grace = args.get('grace', DEFAULT_GRACE)
    if grace is None:
        grace = DEFAULT_GRACE
    if isinstance(grace, bool) or not isinstance(grace, (int, float)) or not \
            (0 <= grace <= MAX_GRACE):
        raise bad_args('grace must be a number of seconds between 0 and %d' % MAX_GRACE)
    ids, user, everything = args.get('job_ids'), args.get('user'), args.get('all')
    if sum(1 for x in (ids, user, everything) if x) != 1:
        raise bad_args('say which jobs: job_ids, or user, or all=true (exactly one)')
    if ids:
        ids = parse_job_ids(ids)
    if user is not None and not isinstance(user, str):
        raise bad_args('user must be a string')
    conn = ctx.conn()
    now = time.time()
    with db.write_txn(conn) as txn:
        if ids:
            rows = conn.execute('SELECT job_id, status FROM jobs WHERE job_id IN (%s)' %
                                ','.join('?' * len(ids)), ids).fetchall()
            missing = sorted(set(ids) - set(r[0] for r in rows))
            if missing:
                raise AgentError('not_found', 'no such job: %s' % ', '.join(map(str, missing)),
                                 {'job_ids': missing})
        elif user is not None:
            rows = conn.execute('SELECT job_id, status FROM jobs WHERE user = ? AND status IN (%s)'
                                % sql_list(NON_TERMINAL), (user,)).fetchall()
        else:
            rows = conn.execute('SELECT job_id, status FROM jobs WHERE status IN (%s)'
                                % sql_list(NON_TERMINAL)).fetchall()
        cancelled, already, active = [], [], []
        for job_id, status in sorted(rows):
            if status in TERMINAL:
                already.append(job_id)
                continue
            db.advance(conn, txn, job_id, 'CANCELLED', reason='cancelled by request', now=now)
            cancelled.append(job_id)
            if status in ACTIVE:
                active.append(job_id)
        if active:
            conn.execute('UPDATE jobs SET kill_deadline = ? WHERE job_id IN (%s)' %
                         ','.join('?' * len(active)), [now + grace] + active)
        targets = conn.execute(
            'SELECT job_id, driver_pid, driver_start, boot_id, cgroup FROM jobs WHERE job_id IN (%s)' %
            ','.join('?' * len(active)), active).fetchall() if active else []
    # The pending ones never start: their parked drivers and staged files go.
    park.dismiss(ctx.paths, sorted(set(cancelled) - set(active)))
    stage.discard(ctx.paths, sorted(set(cancelled) - set(active)))
    if targets:
        for t in targets:
            flag_cancelled(ctx.paths, t[0])
        boot = procs.boot_id()
        sig = signal.SIGKILL if grace <= 0 else signal.SIGTERM
        procs.kill_jobs(ctx.paths.marker_prefix, targets, sig, boot)
        remote_problems(ctx, [t[0] for t in targets], sig)
        scheduler.step(ctx)  # the freed resources go to the next pending jobs
    if cancelled:
        daemon_ctl.ensure(ctx)
    if targets:
        # It sleeps until the earliest kill deadline it knows; a tick away (and a Python start
        # from watch mode) it finds this one in time without being signalled.
        daemon_ctl.wake(ctx.paths, urgent=grace < daemon_ctl.tick_interval() + 1.0)
    return {'cancelled': cancelled, 'already_terminal': already, 'grace': grace}
