"""What a kill needs beyond signalling this node's processes (procs.kill_jobs): the flag that
tells a driver to report nothing, and the ranks of multi-node jobs on the workers."""
import os
import time

from .remote import kill_remote_ranks


def flag_cancelled(paths, job_id):
    """Tells the driver not to start an interpreter to report an outcome nobody needs."""
    try:
        with open(os.path.join(paths.job_dir(job_id), 'cancelled'), 'w'):
            pass
    except OSError:
        pass  # job dir not written yet (claimed a moment ago): the driver reports, harmlessly


def remote_problems(ctx, job_ids, sig):
    """Ranks on workers are signalled through the workers' agents; an unreachable worker is
    written to the daemon log (its processes die with the node, or on the next cancel)."""
    multi = [j for (j,) in ctx.conn().execute(
        "SELECT job_id FROM jobs WHERE nodes IS NOT NULL AND nodes != '[0]' AND job_id IN (%s)"
        % ','.join('?' * len(job_ids)), job_ids)] if job_ids else []
    if not multi:
        return {}
    problems = kill_remote_ranks(ctx, multi, sig)
    if problems:
        try:
            with open(ctx.paths.daemon_log, 'a') as f:
                for job_id, items in sorted(problems.items()):
                    f.write('%s cancel job %d: %s\n' % (time.strftime('%Y-%m-%dT%H:%M:%S'), job_id, '; '.join(items)))
        except OSError:
            pass
    return problems
