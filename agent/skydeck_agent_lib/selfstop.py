"""`_selfstop`: what the daemon starts (detached, output in autostop.log) once the cluster has
been idle long enough and autostop names an action instead of a command.

- shutdown: an OS shutdown of every worker (over the cluster's ssh), then of the head. The
  cloud turns that into a stop, or a terminate where the instance's shutdown behaviour says so.
- gcp / azure: the cloud's API through the VM's own identity (gce_stop.py, azure_stop.py).
- kubernetes (autodown only): the pods deleted through the API server with the head pod's own
  ServiceAccount (kube_stop.py); a refusal leaves them running, and says so.
  If a GCP delete is refused, the cluster is still shut down (stopped: the disks bill, the
  VMs do not). Azure is not: a shut-down VM bills as much as a running one.
What happened, problems included, is kept as meta `autostop_result` for `status`.
"""
import subprocess
import sys
import time

from . import azure_stop, db, gce_stop, hooks, kube_stop, nodes
from .remote import popen

SHUTDOWN = 'sudo -n shutdown -h now || shutdown -h now'
SSH_TIMEOUT = 30


def run(ctx):
    hooks.load(ctx.paths)  # test hooks come from a client's record, never from our environment
    conn = ctx.conn()
    cfg = db.get_meta(conn, 'autostop') or {}
    cluster = db.get_meta(conn, 'cluster', {}) or {}
    action, down = cfg.get('action'), bool(cfg.get('down'))
    result = {'at': time.time(), 'action': action, 'down': down, 'done': [], 'problems': []}
    _say('self-stop: %s%s' % (action, ' (down)' if down else ''))
    try:
        if action == 'kubernetes':
            try:
                result['done'] = kube_stop.delete_cluster(cluster, _say)
            except Exception as e:  # pods have no "shut down": nothing else to try
                result['problems'].append(str(e))
                _say('problem: %s' % e)
        elif action in ('gcp', 'azure'):
            mod = _cloud_module(action)
            try:
                result['done'] = mod.stop_cluster(down, _say)
            except Exception as e:  # any failure: say exactly what the API answered
                result['problems'].append(str(e))
                _say('problem: %s' % e)
                if action == 'gcp':
                    _say('shutting the nodes down instead (they stop; their disks still bill)')
                    _shutdown_all(ctx, cluster, result)
        else:
            _shutdown_all(ctx, cluster, result)
    finally:
        result['ok'] = not result['problems']
        with db.write_txn(conn):
            db.set_meta(conn, 'autostop_result', result)
    return 0 if result['ok'] else 1


def _cloud_module(action):
    if action == 'gcp':
        return gce_stop
    return azure_stop


def _shutdown_command():
    """Tests replace the shutdown (SKYDECK_SHUTDOWN_COMMAND, a shell command) on every node."""
    return hooks.get('SKYDECK_SHUTDOWN_COMMAND', SHUTDOWN)


def _shutdown_all(ctx, cluster, result):
    """Workers first, all at once; the head last (its shutdown ends this process)."""
    command = _shutdown_command()
    workers = cluster.get('workers') or []
    calls = [(i, popen(nodes.worker_argv(ctx.paths, w, ['/bin/sh', '-c', command])))
             for i, w in enumerate(workers, 1)]
    deadline = time.time() + SSH_TIMEOUT
    for i, p in calls:
        who = nodes.describe(cluster, i)
        _record(result, who, who, _finish(p, deadline))
    nodes.close_masters(ctx.paths, workers)
    _record(result, 'head', 'the head', _finish(popen(['/bin/sh', '-c', command]), time.time() + SSH_TIMEOUT))


def _record(result, done_as, who, err):
    if err is None:
        result['done'].append(done_as)
        _say('shut down %s' % who)
    else:
        result['problems'].append('%s: %s' % (who, err))
        _say('problem: %s: %s' % (who, err))


def _finish(p, deadline):
    """None when the command exited 0, else why not."""
    if p is None:
        return 'could not start'
    try:
        _, err = p.communicate(timeout=max(0.1, deadline - time.time()))
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        return 'timed out'
    if p.returncode == 0:
        return None
    return 'exit %s: %s' % (p.returncode, (err or b'').decode('utf-8', 'replace').strip()[-300:])


def _say(line):
    sys.stdout.write('%s %s\n' % (time.strftime('%Y-%m-%dT%H:%M:%S'), line))
    sys.stdout.flush()
