"""The cluster's nodes as the head sees them, and how the head reaches a worker.

Node 0 is the head (this machine). A VM's workers are reached with the system ssh client, the
cluster-internal key Skydeck installed (<base>/cluster_key) and the workers' host keys Skydeck
verified (<base>/cluster_known_hosts): strict checking, no prompts, no agent forwarding. The
user's own key never reaches the head. A worker of a container cluster (image_id: docker:…) is
the same ssh, into `<runtime> exec -i <container>` there: its agent and ranks run in its
container, as the head's run in the head's. A Kubernetes cluster's workers are pods, reached through
the API server's exec stream with the head pod's own ServiceAccount (kexec.py). Callers build
argv with worker_argv and never care which.
"""
import json
import os
import re
import shlex
import sys

from .errors import bad_args

WORKER_KEYS = ('address', 'port', 'user', 'python', 'agent', 'base', 'container')
# A runtime is a program name and a container a name the runtimes accept: neither is a flag.
CONTAINER_NAME = re.compile(r'[A-Za-z0-9][A-Za-z0-9_.-]{0,127}\Z')
KUBE_WORKER_KEYS = ('kube', 'python', 'agent', 'base')
KUBE_KEYS = ('namespace', 'pod', 'container', 'server')


def parse_workers(value):
    """configure's `workers`: [{address, port, user, python, agent, base}] in rank order."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise bad_args('workers must be a list of objects')
    out = []
    for i, w in enumerate(value):
        if isinstance(w, dict) and 'kube' in w:
            out.append(_kube_worker(i, w))
            continue
        if not isinstance(w, dict) or set(w) - set(WORKER_KEYS):
            raise bad_args('workers[%d] must be an object with keys %s' % (i, ', '.join(WORKER_KEYS)))
        for k in ('address', 'user', 'python', 'agent', 'base'):
            if not isinstance(w.get(k), str) or not w[k] or '\n' in w[k]:
                raise bad_args('workers[%d].%s must be a non-empty string' % (i, k))
        port = w.get('port', 22)
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
            raise bad_args('workers[%d].port must be a port number' % i)
        if 'container' in w:
            c = w['container']
            if not isinstance(c, dict) or set(c) != {'runtime', 'name'} or \
                    not all(isinstance(c[k], str) and CONTAINER_NAME.match(c[k]) for k in c):
                raise bad_args('workers[%d].container must be {"runtime": NAME, "name": NAME}' % i)
        out.append(dict(w, port=port))
    return out


def _kube_worker(i, w):
    """{kube: {namespace, pod, container[, server]}, python, agent, base}: a worker pod."""
    k = w.get('kube')
    if set(w) - set(KUBE_WORKER_KEYS) or not isinstance(k, dict) or set(k) - set(KUBE_KEYS):
        raise bad_args('workers[%d] must be an object with keys %s, kube with keys %s'
                       % (i, ', '.join(KUBE_WORKER_KEYS), ', '.join(KUBE_KEYS)))
    for d, keys, where in ((w, ('python', 'agent', 'base'), ''), (k, KUBE_KEYS[:3], 'kube.')):
        for key in keys:
            if not isinstance(d.get(key), str) or not d[key] or '\n' in d[key]:
                raise bad_args('workers[%d].%s%s must be a non-empty string' % (i, where, key))
    if 'server' in k and (not isinstance(k['server'], str) or not k['server'].startswith('https://')):
        raise bad_args('workers[%d].kube.server must be an https URL' % i)
    return dict(w, kube=dict(k))


def parse_kube_head(value):
    """configure's `kube_head`: {namespace, pod, container[, server]}, the head pod itself (its
    autodown deletes it last; kube_stop.py)."""
    if value is None:
        return None
    return _kube_worker(0, {'kube': value, 'python': '-', 'agent': '-', 'base': '-'})['kube']


def count(cluster):
    """How many nodes the cluster has (the head alone when nothing was configured)."""
    return 1 + len(cluster.get('workers') or [])


def ip_of(cluster, index):
    ips = cluster.get('node_ips') or []
    if index < len(ips):
        return ips[index]
    if index == 0:
        return '127.0.0.1'
    w = cluster['workers'][index - 1]
    return w['kube']['pod'] if 'kube' in w else w['address']


def describe(cluster, index):
    if index == 0:
        return 'the head node (%s)' % ip_of(cluster, 0)
    w = cluster['workers'][index - 1]
    if 'kube' in w:
        return 'worker node %d (pod %s)' % (index, w['kube']['pod'])
    if w.get('container'):
        return 'worker node %d (container %s on %s@%s)' % (index, w['container']['name'], w['user'], w['address'])
    return 'worker node %d (%s@%s)' % (index, w['user'], w['address'])


def worker_argv(paths, worker, remote_argv, stdin=False):
    """argv running remote_argv on a worker: ssh for a VM, the head's own exec client for a pod.
    stdin: the caller writes input and closes it (a pod's exec needs to know; ssh always reads)."""
    if 'kube' not in worker:
        c = worker.get('container')
        if c:
            remote_argv = [c['runtime'], 'exec', '-i', c['name']] + list(remote_argv)
        return ssh_argv(paths, worker, remote_argv)
    return ([sys.executable, '-E', '-S', AGENT, '--base', paths.base, '_kexec',
             json.dumps(worker['kube'], sort_keys=True)] + (['--stdin'] if stdin else []) +
            ['--'] + list(remote_argv))


# This agent's own entry script (the package sits beside it): the exec client runs from it.
AGENT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'skydeck_agent.py')


def ssh_argv(paths, worker, remote_argv):
    """argv for the system ssh client running remote_argv on a worker (quoted for its shell)."""
    opts = ['-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes',
            '-o', 'StrictHostKeyChecking=yes',
            '-o', 'UserKnownHostsFile=%s' % os.path.join(paths.base, 'cluster_known_hosts'),
            '-o', 'GlobalKnownHostsFile=/dev/null',
            '-o', 'ConnectTimeout=10', '-o', 'ServerAliveInterval=5', '-o', 'ServerAliveCountMax=3',
            '-o', 'LogLevel=ERROR', '-F', '/dev/null']
    opts += control_opts(paths)
    return (['ssh', '-i', os.path.join(paths.base, 'cluster_key'), '-p', str(worker['port'])] + opts +
            ['%s@%s' % (worker['user'], worker['address']), '--',
             ' '.join(shlex.quote(a) for a in remote_argv)])


def control_opts(paths):
    """One shared connection per worker (OpenSSH multiplexing): a gang job's ranks start without
    a key exchange each. The master detaches into its own session; the agent's shutdown ends it.
    Skipped when the socket path would exceed the kernel's limit for unix socket names."""
    cm = os.path.join(paths.base, 'cm')
    if len(cm) + 42 > 100:
        return []
    if not os.path.isdir(cm):
        os.makedirs(cm, 0o700, exist_ok=True)
    return ['-o', 'ControlMaster=auto', '-o', 'ControlPath=%s/%%C' % cm, '-o', 'ControlPersist=600']


def close_masters(paths, workers):
    """Ends the shared connections to the workers (before a teardown removes the base dir)."""
    import subprocess
    for w in workers or []:
        if 'kube' in w:
            continue  # an exec stream is never shared: nothing to close
        argv = ssh_argv(paths, w, ['true'])
        argv = argv[:1] + ['-O', 'exit'] + argv[1:argv.index('--')]
        try:
            subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=10)
        except (OSError, subprocess.SubprocessError):
            pass


def agent_argv(worker, *args):
    """The worker's own agent (installed there by Skydeck), with its own base dir."""
    return [worker['python'], '-E', '-S', worker['agent'], '--base', worker['base']] + list(args)
