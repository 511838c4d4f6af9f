"""The cgroups of jobs as jobs.db records them (the `cgroup` column; cgroups.py does the
filesystem): a finishing driver leaves its job's cgroup, finished jobs' empty ones go."""
from . import cgroups, db
from .states import TERMINAL, sql_list


def leave_cgroup(ctx, job_id):
    """A driver's report, before it starts the next jobs or the daemon: out of the finished
    job's cgroup (nothing it starts belongs there), which is removed if that left it empty."""
    conn = ctx.conn()
    row = conn.execute('SELECT cgroup FROM jobs WHERE job_id = ?', (job_id,)).fetchone()
    cg = row and row[0]
    if not cg or not cgroups.valid(cg, ctx.paths.marker_prefix):
        return
    cgroups.leave(cg)
    if cgroups.remove(cg):
        with db.write_txn(conn):
            conn.execute('UPDATE jobs SET cgroup = NULL WHERE job_id = ?', (job_id,))


def remove_cgroups(ctx):
    """rmdir the cgroups of finished jobs once empty (a job's leftovers keep theirs)."""
    conn = ctx.conn()
    rows = conn.execute('SELECT job_id, cgroup FROM jobs WHERE cgroup IS NOT NULL AND status IN '
                        '(%s)' % sql_list(TERMINAL)).fetchall()
    gone = [j for j, cg in rows
            if not cgroups.valid(cg, ctx.paths.marker_prefix) or cgroups.remove(cg)]
    if gone:
        with db.write_txn(conn):
            conn.execute('UPDATE jobs SET cgroup = NULL WHERE job_id IN (%s)' %
                         ','.join('?' * len(gone)), gone)
    return gone
