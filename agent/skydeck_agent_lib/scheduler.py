"""The scheduling step: claim every pending job that fits (submission order), start drivers.

Claiming (PENDING -> SETTING_UP/RUNNING) commits before any driver is forked, so a crash in
between can never run a job twice: a claimed job whose driver pid never got recorded is failed
by the liveness sweep. Starting drivers happens outside the write transaction.
"""
import json
import os
import signal
import time

from . import cgroups, daemon_ctl, db, devices, driver, launcher, nodes, park, pending_secrets, procs, resources, spawn, stage
from .job_kill import flag_cancelled
from .remote import kill_remote_ranks

# A claimed job with no recorded driver after this long: its starter died in between.
CLAIM_TIMEOUT = 30.0


def claim(conn, txn, boot, now, paths=None, fresh=None):
    """Inside an open write transaction: claim what fits. Returns the launches to do.

    Secret values come from `fresh` (job id -> values, a submit in this transaction) or from
    the job's pending file (pending_secrets.py), read here under the write lock.

    Nodes are alike (one capacity for each, the head's, declared or detected). A job of k nodes
    takes the first k nodes, head first, that each have its resources free: all or nothing,
    so a gang never starts short of a rank. Each node has the head's devices too, so each
    rank gets devices of its own node (devices.py).
    """
    cluster = db.get_meta(conn, 'cluster', {}) or {}
    n = nodes.count(cluster)
    cap, _, detected = resources.capacity(conn, boot, with_devices=True)
    per = resources.used_per_node(conn, n)
    free = [resources.subtract(cap, u) for u in per]
    held = [u['slots'] for u in per]
    pools = devices.pools(cap.get('accelerators'), detected)
    plain = {}  # what jobs asking for no accelerator hold, per node set: built once per step
    most = max(f['cpus'] for f in free)
    most_mem = max(f['memory'] for f in free)
    # Let SQLite drop what cannot fit on CPU/memory anywhere before Python looks at a row.
    rows = conn.execute(
        "SELECT job_id, cpus, memory, accelerators, num_nodes FROM jobs WHERE status = 'PENDING' "
        'AND cpus <= ? AND memory <= ? ORDER BY job_id',
        (most + resources.EPS, most_mem + resources.EPS)).fetchall()
    launches = []
    for job_id, cpus, memory, acc, k in rows:
        if k > n:
            db.advance(conn, txn, job_id, 'FAILED_DRIVER', now=now,
                       reason='the job needs %d nodes; the cluster has %d' % (k, n))
            continue
        demand = {'cpus': cpus, 'memory': memory, 'accelerators': json.loads(acc) if acc else None}
        chosen, alloc = [], {}
        for i in range(n):
            if len(chosen) == k:
                break
            a = devices.assign_all(pools, held[i], demand['accelerators']) \
                if resources.fits(free[i], demand) else None
            if a is not None:
                chosen.append(i)
                alloc[i] = a
        if len(chosen) < k:
            continue
        spec_text, submitted_at = conn.execute(
            'SELECT spec, submitted_at FROM jobs WHERE job_id = ?', (job_id,)).fetchone()
        spec = json.loads(spec_text)
        cwd, problem = driver.resolve_workdir(spec.get('workdir')) if chosen[0] == 0 else (spec.get('workdir'), None)
        if problem:
            db.advance(conn, txn, job_id, 'FAILED_SETUP', reason=problem, now=now)
            continue
        secrets = (fresh or {}).get(job_id)
        if secrets is None:
            secrets = pending_secrets.take(paths, job_id, spec) if paths else {}
        if secrets is None:
            db.advance(conn, txn, job_id, 'FAILED_DRIVER', now=now,
                       reason='the values of its secrets are gone (pending/%d.json)' % job_id)
            continue
        for i in chosen:
            resources.take(free[i], demand)
            devices.take(held[i], alloc[i])
        dev, text = _devices_of(pools, alloc, demand['accelerators'], plain)
        status = 'SETTING_UP' if (spec.get('setup') or '').strip() else 'RUNNING'
        conn.execute("UPDATE jobs SET status = ?, started_at = ?, boot_id = ?, nodes = ?, "
                     "devices = ?, updated_seq = ? WHERE job_id = ? AND status = 'PENDING'",
                     (status, now, boot, json.dumps(chosen), text, txn.seq(), job_id))
        launches.append((job_id, spec, submitted_at, cwd, chosen, secrets, dev['env'][str(chosen[0])]))
    return launches


def _devices_of(pools, alloc, demand_accs, plain):
    """The jobs.devices value of a claim and its JSON text (db.py, schema 5)."""
    key = None if demand_accs else tuple(alloc)
    if key in plain:
        return plain[key]
    dev = {'alloc': dict((str(i), a) for i, a in alloc.items() if a),
           'env': dict((str(i), devices.env_for(pools, a, demand_accs)) for i, a in alloc.items())}
    out = (dev, json.dumps(dev))
    if key is not None:
        plain[key] = out
    return out


def launch(ctx, launches):
    """Start the drivers of claimed jobs and record who they are."""
    conn = ctx.conn()
    paths = ctx.paths
    pending_secrets.sweep(paths, conn)  # the claims committed: their files go now
    if not launches:
        park.sweep(paths, conn)
        return
    cluster = db.get_meta(conn, 'cluster', {}) or {}
    base = driver.base_env(paths, ctx.client)
    driver.warm(ctx.agent_path)
    tag = cgroups.db_tag(db.get_meta(conn, 'db_id'))
    items, failed, groups, jobs, stamps = [], {}, {}, {}, {}
    for job in launches:
        job_id = job[0]
        stamps[job_id] = driver.task_stamp(job[2])  # here: localtime takes a lock a fork may hold
        # Its own cgroup where the node allows one (made in prepare, entered by the
        # driver or its job's shell).
        kind, cg = cgroups.plan(paths.marker_prefix, '%s-%d' % (tag, job_id))
        groups[job_id] = (kind or 'marker', cg)
        jobs[str(job_id)] = job
        items.append((str(job_id), None, None, paths.log_file(job_id)))

    def prepare(key):
        job_id, spec, submitted_at, cwd, chosen, secrets, dev_env = jobs[key]
        cg, note = groups[job_id][1], ''
        if cg:
            try:
                cgroups.make(cg)
            except OSError:  # as where no cgroup can be made: found by marker (recorded below)
                cg, note = None, 'marker'
        stage.write(paths, job_id, spec)  # staged while it waited (stage.py), or written now
        env = driver.job_env(base, paths, ctx.agent_path, job_id, spec, cluster,
                             stamps[job_id], cwd, chosen, cg, secrets, dev_env)
        # The head alone: the small sh driver. Any worker involved: the gang driver.
        argv = driver.driver_argv(job_id, env, spec) if chosen == [0] else driver.gang_argv(ctx, job_id)
        return argv, env, note

    if groups:
        # Recorded before any driver runs: a starter dying right after the spawn still leaves
        # the liveness sweep a cgroup to empty.
        with db.write_txn(conn):
            conn.executemany('UPDATE jobs SET isolation = ?, cgroup = ? WHERE job_id = ?',
                             [(k, cg, j) for j, (k, cg) in groups.items()])
    # Each job is made ready (cgroup, files, environment) right before its start, overlapping
    # the starts before it: here, handed to the waiter's launcher as it is (launcher.py), or in
    # forked intermediates of this process where the node has no waiter.
    waiter = driver.waiter(ctx.agent_path)
    started = _release_parked(ctx, jobs, prepare, waiter) if waiter else {}
    rest = [item for item in items if item[0] not in started]
    started.update(launcher.launch_many(waiter, rest, prepare) if waiter else spawn.spawn_many(rest, prepare))
    park.sweep(paths, conn)  # what stays parked for jobs that ended queued (failed at the claim)
    now = time.time()
    with db.write_txn(conn) as txn:
        for key, res in started.items():
            if isinstance(res, tuple):
                conn.execute('UPDATE jobs SET driver_pid = ?, driver_start = ?, updated_seq = ? '
                             'WHERE job_id = ?', (res[0], res[1], txn.seq(), int(key)))
                if res[2:] == ('marker',):  # its cgroup could not be made
                    conn.execute("UPDATE jobs SET isolation = 'marker', cgroup = NULL WHERE job_id = ?",
                                 (int(key),))
            else:
                failed[int(key)] = res
        for job_id, reason in failed.items():
            db.advance(conn, txn, job_id, 'FAILED_DRIVER', reason=reason, now=now)
    # A cancel that landed between claim and pid recording could not signal the driver.
    ids = [int(k) for k, r in started.items() if isinstance(r, tuple)]
    if ids:
        daemon_ctl.wake(paths, urgent=False)  # the watch-mode sh watches the drivers it knew: these are new
    late = conn.execute(
        "SELECT job_id, driver_pid, driver_start, boot_id, cgroup FROM jobs WHERE status = 'CANCELLED' "
        'AND job_id IN (%s)' % ','.join('?' * len(ids)), ids).fetchall() if ids else []
    if late:
        for row in late:
            flag_cancelled(paths, row[0])
        procs.kill_jobs(paths.marker_prefix, late, signal.SIGTERM, procs.boot_id())
        kill_remote_ranks(ctx, [row[0] for row in late], signal.SIGTERM)


def _release_parked(ctx, jobs, prepare, waiter):
    """{key: (pid, start[, note])} of the jobs started by releasing their parked drivers
    (park.py): each made ready as any start is, and released only if that is what it was parked
    with."""
    paths = ctx.paths
    parked = park.parked_ids(paths)
    if not parked:
        return {}
    ident = park.identity(db.get_meta(ctx.conn(), 'db_id') or '', waiter)
    wants, notes, off = {}, {}, []
    for key, (job_id, spec, _, _, chosen, _, _) in jobs.items():
        if job_id not in parked:
            continue
        if chosen != [0] or not park.eligible(spec):
            off.append(job_id)
            continue
        try:
            argv, env, notes[job_id] = prepare(key)
        except Exception:  # its start through the launcher says why
            off.append(job_id)
            continue
        wants[job_id] = park.digest(ident, paths.log_file(job_id), argv, env)
    park.dismiss(paths, off)
    got = park.release(paths, wants)
    return dict((str(j), res + ((notes[j],) if notes[j] else ())) for j, res in got.items())


def step(ctx):
    """A full scheduling step in its own transactions; returns the started job ids."""
    conn = ctx.conn()
    with db.write_txn(conn) as txn:
        launches = claim(conn, txn, procs.boot_id(), time.time(), ctx.paths)
    launch(ctx, launches)
    return [l[0] for l in launches]


def detached_step(ctx):
    """The next scheduling step, in its own session: this process is still the finished job's
    driver (same pid and group), which a late SIGKILL of that group would hit mid-way."""
    if not spawn.fork_detached():
        return
    code = 0
    try:
        ctx.forget_conn()
        step(ctx)
        daemon_ctl.ensure(ctx)
    except BaseException:
        code = 1
    finally:
        os._exit(code)
