"""What the head asks of its workers' agents over ssh: kill a job's ranks, read a rank's exit."""
import json
import os
import time

from . import db, nodes
from .driver import filtered_environ

KILL_TIMEOUT = 15.0


def kill_remote_ranks(ctx, job_ids, sig):
    """Signal every process of these jobs on the workers they hold (by the job marker there).
    Returns {job_id: [problem, ...]} for workers that could not be reached."""
    # subprocess is imported where it is used (here, as in procs.py and nodes.py): every short
    # call loads this module through the scheduler, few of them start a process.
    import subprocess
    conn = ctx.conn()
    cluster = db.get_meta(conn, 'cluster', {}) or {}
    workers = cluster.get('workers') or []
    calls = []
    for job_id in job_ids:
        row = conn.execute('SELECT nodes FROM jobs WHERE job_id = ?', (job_id,)).fetchone()
        for i in (json.loads(row[0]) if row and row[0] else []):
            if 0 < i <= len(workers):
                w = workers[i - 1]
                argv = nodes.worker_argv(ctx.paths, w, nodes.agent_argv(w, '_kill', str(job_id), str(int(sig))))
                calls.append((job_id, i, popen(argv)))
    problems = {}
    deadline = time.time() + KILL_TIMEOUT
    for job_id, i, p in calls:
        if p is None:
            problems.setdefault(job_id, []).append('%s: ssh could not start' % nodes.describe(cluster, i))
            continue
        try:
            _, err = p.communicate(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
        if p.returncode != 0:
            problems.setdefault(job_id, []).append('%s: %s' % (
                nodes.describe(cluster, i), (err or b'').decode('utf-8', 'replace').strip()[-300:]))
    return problems


def confirm_exit(paths, worker, job_id, rank, phase, code):
    """A remote rank's failing exit as the gang counts it; None when the worker was lost.
    255 is ssh's (and kexec's) own failure: the worker says what became of the rank. A pod
    being deleted kills the rank (137 arrives as if it had failed): a pod's nonzero exit
    counts only when the pod still answers; the exit file, if any, has the rank's own code."""
    if code != 255 and 'kube' not in worker:
        return code
    got = rank_exit(paths, worker, job_id, rank, phase)
    if got is not None:
        return got
    if code == 255 or not answers(paths, worker):
        return None
    return code


def answers(paths, worker, timeout=15.0):
    import subprocess
    p = popen(nodes.worker_argv(paths, worker, ['true']))
    if p is None:
        return False
    try:
        p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return False
    return p.returncode == 0


def rank_exit(paths, worker, job_id, rank, phase, timeout=15.0):
    """After ssh exited 255: the rank's own exit code if it finished on the worker, else None
    (the worker is unreachable, or it restarted under the rank)."""
    import subprocess
    path = '%s/jobs/%d/rank-%d-%s.exit' % (worker['base'], job_id, rank, phase)
    p = popen(nodes.worker_argv(paths, worker, ['cat', path]), stdout=subprocess.PIPE)
    if p is None:
        return None
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return None
    text = out.decode('ascii', 'replace').strip()
    return int(text) if p.returncode == 0 and text.isdigit() else None


def popen(argv, stdout=None):
    """stdout: a subprocess constant; None is DEVNULL."""
    import subprocess
    try:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL if stdout is None else stdout,
                                stderr=subprocess.PIPE, env=_client_env())
    except OSError:
        return None


def _client_env():
    """ssh runs without the job marker: it is the head's tool, not one of the job's processes."""
    return filtered_environ(os.environ)
