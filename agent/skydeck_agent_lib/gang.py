"""The gang driver: runs one job's ranks on their nodes at once and gathers their exits.

Started detached like the sh driver (own session, the job's environment and marker, stdout on
the job log). Rank 0's output is the job log; rank r's is logs/<job>/rank-<r>.log. Setup runs
on every rank, then run on every rank. The first rank to fail fails the job and the others are
stopped (TERM, then KILL); a worker that stops answering fails it as FAILED_DRIVER, named.
A cancel kills this process's group (it and its ssh clients), rank 0's group by marker, and
the remote ranks through the workers' agents (cancel.py): this driver then reports nothing.
"""
import json
import os
import signal
import subprocess
import time

from . import cgroups, db, flushwait, nodes, rank_sh, remote, scheduler
from .job_cgroups import leave_cgroup
from .paths import MARKER_VAR
from .private import UMASK_VAR, restore_for_job

STOP_GRACE = 5.0


class Rank(object):
    def __init__(self, rank, node, proc):
        self.rank, self.node, self.proc = rank, node, proc


def run(ctx, job_id):
    cg = os.environ.pop('_SKYDECK_CGROUP', '')
    if cg:
        # Into the job's cgroup before any rank starts, as the sh driver does.
        try:
            cgroups.join(cg)
        except OSError as e:
            return report(ctx, job_id, 'FAILED_DRIVER',
                          'the driver could not join the job cgroup %s: %s' % (cg, e), None)
    try:
        return _run(ctx, job_id)
    except Exception as e:  # never leave the job RUNNING with nobody to report it
        remote.kill_remote_ranks(ctx, [job_id], signal.SIGKILL)
        return report(ctx, job_id, 'FAILED_DRIVER', 'the gang driver failed: %r' % e, None)


def _run(ctx, job_id):
    conn = ctx.conn()
    spec_text, chosen, dev = conn.execute('SELECT spec, nodes, devices FROM jobs WHERE job_id = ?',
                                          (job_id,)).fetchone()
    cluster = db.get_meta(conn, 'cluster', {}) or {}
    ctx.close()  # no database handle held while the job runs
    spec, chosen = json.loads(spec_text), json.loads(chosen)
    dev_env = (json.loads(dev) if dev else {}).get('env') or {}
    env0 = dict(os.environ)
    private = dict((k, env0.pop(k)) for k in list(env0) if k.startswith('_SKYDECK_'))
    job_dir = private['_SKYDECK_DIR']
    phases = [p for p in ('setup', 'run') if os.path.exists(os.path.join(job_dir, p + '.sh'))]
    for phase in phases:
        if os.path.exists(os.path.join(job_dir, 'cancelled')):
            return 143
        # Workers first: their ranks have an ssh session to open, rank 0 only a fork.
        ranks = [start(ctx, cluster, spec, env0, private, phase, r, node,
                       None if phase == 'setup' else dev_env.get(str(node)))
                 for r, node in reversed(list(enumerate(chosen)))][::-1]
        failure = wait_all(ctx, cluster, ranks, job_id, phase)
        if os.path.exists(os.path.join(job_dir, 'cancelled')):
            return 143
        if failure:
            stop(ctx, job_id, ranks)
            status, reason, code = explain(cluster, phase, failure)
            if phase == 'run':
                return flushed_report(ctx, job_id, status, reason, code)
            return report(ctx, job_id, status, reason, code)
        if phase == 'setup' and 'run' in phases:
            conn = ctx.conn()
            with db.write_txn(conn) as txn:
                db.advance(conn, txn, job_id, 'RUNNING')
            ctx.close()
    return flushed_report(ctx, job_id, 'SUCCEEDED', None, 0)


def flushed_report(ctx, job_id, status, reason, code):
    """After run: the head's MOUNT_CACHED mounts upload first (README, "Cached mounts")."""
    unflushed = flushwait.wait_for_job(ctx.paths, job_id)
    if os.path.exists(os.path.join(ctx.paths.job_dir(job_id), 'cancelled')):
        return 143
    if unflushed:
        status, reason = 'FAILED', unflushed if reason is None else '%s; %s' % (reason, unflushed)
    return report(ctx, job_id, status, reason, code)


def rank_vars(env0, spec, r, dev_env=None):
    """A rank's job variables; dev_env: the devices of the rank's own node (none in setup)."""
    keep = set(spec.get('envs') or {}) | set(spec.get('secret_names') or ())
    out = dict((k, v) for k, v in (dev_env or {}).items() if k not in keep)
    out.update((k, v) for k, v in env0.items()
               if k in keep or (k.startswith(('SKYPILOT_', 'SKYDECK_')) and k != MARKER_VAR))
    for k in ('SKYDECK_NODE_RANK', 'SKYPILOT_NODE_RANK', 'SKYPILOT_SETUP_NODE_RANK'):
        out[k] = str(r)
    return out


def start(ctx, cluster, spec, env0, private, phase, r, node, dev_env=None):
    job_id = int(private['_SKYDECK_JOB'])
    script = os.path.join(private['_SKYDECK_DIR'], phase + '.sh')
    out = None if r == 0 else open(os.path.join(ctx.paths.log_dir(job_id), 'rank-%d.log' % r), 'ab')
    try:
        if node == 0:
            env = dict(env0)
            for k in private.get('_SKYDECK_SETUP_UNSET', '').split():
                env.pop(k, None)  # setup sees every device (driver.setup_unset); run its own
            env.update(rank_vars(env0, spec, r, dev_env))
            # Own process group, so a failing peer can stop this rank without stopping us.
            um = private.get(UMASK_VAR)

            def own_group():
                os.setpgrp()
                restore_for_job(um)
            proc = subprocess.Popen([private['_SKYDECK_SHELL'], script], cwd=private['_SKYDECK_CWD'],
                                    env=env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, preexec_fn=own_group)
        else:
            w = cluster['workers'][node - 1]
            with open(script, 'rb') as f:
                req = rank_sh.payload(rank_vars(env0, spec, r, dev_env), f.read().decode('utf-8', 'surrogateescape'),
                                      private['_SKYDECK_CWD'], os.path.expanduser('~'), private.get(UMASK_VAR))
            # No Python start on the worker: the rank is a constant sh script (rank_sh.py).
            argv = nodes.worker_argv(ctx.paths, w, rank_sh.argv(w, job_id, r, phase), stdin=True)
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT,
                                    env=dict((k, v) for k, v in env0.items() if k != MARKER_VAR))
            proc.stdin.write(req)
            proc.stdin.close()
    finally:
        if out is not None:
            out.close()
    return Rank(r, node, proc)


def wait_all(ctx, cluster, ranks, job_id, phase):
    """Until every rank exited 0 (returns None) or one failed (returns (rank, code, lost))."""
    alive, idle = list(ranks), 0.01
    while alive:
        for rk in list(alive):
            code = rk.proc.poll()
            if code is None:
                continue
            alive.remove(rk)
            if code < 0:
                code = 128 - code
            if code != 0 and rk.node != 0:
                code = remote.confirm_exit(ctx.paths, cluster['workers'][rk.node - 1], job_id, rk.rank, phase, code)
                if code is None:
                    return rk, 255, True
            if code != 0:
                return rk, code, False
        idle = min(idle * 1.5, 0.1)
        time.sleep(idle)
    return None


def explain(cluster, phase, failure):
    rk, code, lost = failure
    where = nodes.describe(cluster, rk.node)
    if lost:
        return 'FAILED_DRIVER', 'rank %d lost: %s stopped answering during %s' % (rk.rank, where, phase), None
    if phase == 'setup':
        return 'FAILED_SETUP', 'setup failed on rank %d (%s) with code %d' % (rk.rank, where, code), code
    return 'FAILED', 'rank %d (%s) exited with code %d; the other ranks were stopped' % (rk.rank, where, code), code


def stop(ctx, job_id, ranks):
    """TERM every other rank, KILL what is left after a grace period."""
    for sig, wait in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, 0)):
        for rk in ranks:
            if rk.node == 0 and rk.proc.poll() is None:
                try:
                    os.killpg(rk.proc.pid, sig)
                except OSError:
                    pass
        remote.kill_remote_ranks(ctx, [job_id], sig)
        ctx.close()
        deadline = time.time() + wait
        while time.time() < deadline and any(rk.proc.poll() is None for rk in ranks):
            time.sleep(0.05)
    for rk in ranks:
        if rk.proc.poll() is None:
            rk.proc.kill()  # an ssh client stuck on a dead connection
        rk.proc.wait()


def report(ctx, job_id, status, reason, code):
    os.environ.pop(MARKER_VAR, None)
    conn = ctx.conn()
    with db.write_txn(conn) as txn:
        changed = db.advance(conn, txn, job_id, status, reason=reason, exit_code=code)
    ctx.close()
    leave_cgroup(ctx, job_id)
    ctx.close()
    if changed:
        scheduler.detached_step(ctx)
    return 0 if status == 'SUCCEEDED' else 1
