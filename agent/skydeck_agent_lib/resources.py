"""Node capacity (detected or declared) and the resource arithmetic of the scheduler.

A resource vector is {"cpus": float, "memory": float GB, "accelerators": {name: count} | None}.
Accelerator names compare case-insensitively; fractional counts (L4:0.25) are plain floats.
"""
import json
import os

from . import db, devices
from .states import sql_list, ACTIVE

EPS = 1e-6


def _acc_key(name):
    return name.lower()


def detect():
    """What this node has: CPUs we may run on, total memory, NVIDIA GPUs by model; and the
    GPUs one by one (devices.py), or None."""
    try:
        cpus = float(len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS
        cpus = float(os.cpu_count() or 1)
    devs = devices.detect(gpu_model)
    counts = {}
    for d in devs or ():
        counts[d['model']] = counts.get(d['model'], 0.0) + 1.0
    return {'cpus': cpus, 'memory': _memory_gb(), 'accelerators': counts or None}, devs


def _memory_gb():
    try:
        with open('/proc/meminfo') as f:
            for line in f:
                if line.startswith('MemTotal:'):
                    return round(int(line.split()[1]) / 1048576.0, 2)
    except OSError:
        pass
    import subprocess
    try:  # macOS
        out = subprocess.run(['sysctl', '-n', 'hw.memsize'], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, timeout=5).stdout
        return round(int(out.strip()) / 1073741824.0, 2)
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0.0


def gpu_model(name):
    """"NVIDIA A100-SXM4-80GB" -> "A100-80GB", "Tesla T4" -> "T4", "NVIDIA L4" -> "L4"."""
    words = [w for w in name.replace('NVIDIA', ' ').replace('Tesla', ' ').replace('GeForce', ' ')
             .split() if w]
    if not words:
        return name.strip() or 'GPU'
    base = words[0].split('-')[0]
    if base.upper() == 'A100' and '80GB' in name.upper():
        return 'A100-80GB'
    return base


def capacity(conn, boot_id, with_devices=False):
    """Declared capacity where the cluster declared it, detected values for the rest (and,
    with_devices, the detected devices: a list or None).

    Detection (nvidia-smi can take a second) is cached in meta for the current boot: it never
    runs per job. configure's `detect` drops the cache (a GPU added or hidden since).
    """
    cached = db.get_meta(conn, 'detected_capacity')
    if not cached or cached.get('boot_id') != boot_id or 'devices' not in cached:
        cap, devs = detect()
        cached = {'boot_id': boot_id, 'capacity': cap, 'devices': devs}
        # Best effort cache write; the caller may be inside a read-only snapshot.
        try:
            if conn.in_transaction:
                db.set_meta(conn, 'detected_capacity', cached)
            else:
                with db.write_txn(conn):
                    db.set_meta(conn, 'detected_capacity', cached)
        except Exception:
            pass
    cap = dict(cached['capacity'])
    declared = db.get_meta(conn, 'declared_capacity')
    source = 'detected'
    if declared:
        source = 'declared'
        for k in ('cpus', 'memory', 'accelerators'):
            if declared.get(k) is not None:
                cap[k] = declared[k]
    if with_devices:
        return cap, source, cached['devices']
    return cap, source


def used(conn):
    """Sum of the demands of the jobs holding resources (SETTING_UP and RUNNING)."""
    row = conn.execute('SELECT COALESCE(SUM(cpus), 0), COALESCE(SUM(memory), 0) FROM jobs '
                       'WHERE status IN (%s)' % sql_list(ACTIVE)).fetchone()
    accs = {}
    for (a,) in conn.execute('SELECT accelerators FROM jobs WHERE status IN (%s) AND '
                             'accelerators IS NOT NULL' % sql_list(ACTIVE)):
        for name, count in json.loads(a).items():
            accs[name] = accs.get(name, 0.0) + count
    return {'cpus': row[0], 'memory': row[1], 'accelerators': merge_names(accs)}


def used_per_node(conn, n_nodes):
    """Like used(), per cluster node: a job's demand counts on every node it holds (a gang job
    asks for its resources on each of its nodes); jobs with no recorded nodes ran on the head.
    'slots' is what devices.py needs: {(pool, slot): share} held on the node."""
    per = [{'cpus': 0.0, 'memory': 0.0, 'accelerators': {}, 'slots': {}} for _ in range(n_nodes)]
    for cpus, memory, acc, nodes, devs in conn.execute(
            'SELECT cpus, memory, accelerators, nodes, devices FROM jobs WHERE status IN (%s)'
            % sql_list(ACTIVE)):
        held = json.loads(devs).get('alloc', {}) if acc and devs else {}
        for i in (json.loads(nodes) if nodes else [0]):
            if i >= n_nodes:
                continue  # the cluster shrank under a running job; its node is gone anyway
            u = per[i]
            u['cpus'] += cpus
            u['memory'] += memory
            for name, count in (json.loads(acc) if acc else {}).items():
                u['accelerators'][name] = u['accelerators'].get(name, 0.0) + count
            devices.take(u['slots'], held.get(str(i)) or ())
    for u in per:
        u['accelerators'] = merge_names(u['accelerators'])
    return per


def merge_names(accs):
    """Fold names differing only in case together (keeps the first spelling)."""
    out, seen = {}, {}
    for name, count in (accs or {}).items():
        k = _acc_key(name)
        if k in seen:
            out[seen[k]] += count
        else:
            seen[k] = name
            out[name] = count
    return out


def spell_like(accs, reference):
    """Report accelerator names as the capacity spells them (jobs may write l4 for L4)."""
    names = dict((_acc_key(k), k) for k in (reference or {}))
    out = {}
    for k, v in (accs or {}).items():
        name = names.get(_acc_key(k), k)
        out[name] = out.get(name, 0.0) + v
    return out


def subtract(cap, use):
    acc = dict((_acc_key(k), v) for k, v in (cap.get('accelerators') or {}).items())
    for k, v in (use.get('accelerators') or {}).items():
        acc[_acc_key(k)] = acc.get(_acc_key(k), 0.0) - v
    return {'cpus': cap['cpus'] - use['cpus'], 'memory': cap['memory'] - use['memory'],
            'accelerators': acc}


def fits(free, demand):
    """free is the output of subtract() (lower-cased accelerator keys)."""
    if demand['cpus'] > free['cpus'] + EPS or demand['memory'] > free['memory'] + EPS:
        return False
    for k, v in (demand.get('accelerators') or {}).items():
        if v > free['accelerators'].get(_acc_key(k), 0.0) + EPS:
            return False
    return True


def take(free, demand):
    free['cpus'] -= demand['cpus']
    free['memory'] -= demand['memory']
    for k, v in (demand.get('accelerators') or {}).items():
        free['accelerators'][_acc_key(k)] = free['accelerators'].get(_acc_key(k), 0.0) - v
