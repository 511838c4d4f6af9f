"""Commands over the job table: submit, queue, status, configure, and the drivers' reports."""
import json
import sys
import time

from . import autostop, cgroups, daemon_ctl, db, devices, flushwait, nodes, pending_secrets, procs, resources, scheduler
from . import spec as spec_mod
from . import PROTOCOL, VERSION
from .errors import AgentError, bad_args
from .job_cgroups import leave_cgroup
from .job_ids import parse_job_ids
from .liveness import on_read
from .states import ORDER, NON_TERMINAL, sql_list
from .wire import Raw


def version(ctx, args):
    return {'version': VERSION, 'protocol': PROTOCOL, 'schema_version': db.SCHEMA_VERSION,
            'python': '%d.%d.%d' % sys.version_info[:3], 'base_dir': ctx.paths.base,
            'marker_prefix': ctx.paths.marker_prefix}


def submit(ctx, args):
    spec = spec_mod.validate(args)  # before the database is even opened
    spec, secrets = spec_mod.split_secrets(spec)  # jobs.db keeps the names only
    res = spec['resources']
    conn = ctx.conn()
    boot = procs.boot_id()
    resources.capacity(conn, boot)  # a first-time detection runs outside the write lock
    now = time.time()
    with db.write_txn(conn) as txn:
        cap, source, detected = resources.capacity(conn, boot, with_devices=True)
        have = nodes.count(db.get_meta(conn, 'cluster', {}) or {})
        if spec['num_nodes'] > have:
            raise AgentError('unschedulable', 'the job needs %d nodes; this cluster has %d'
                             % (spec['num_nodes'], have), {'nodes': have})
        empty = {'cpus': 0.0, 'memory': 0.0, 'accelerators': None}
        pools = devices.pools(cap.get('accelerators'), detected)
        if not resources.fits(resources.subtract(cap, empty), res) or \
                devices.assign_all(pools, {}, res['accelerators']) is None:
            raise AgentError('unschedulable',
                             'the job asks for more than this node has (%s capacity %s)' %
                             (source, json.dumps(cap, sort_keys=True)),
                             {'capacity': cap, 'demand': res})
        cur = conn.execute(
            'INSERT INTO jobs (name, user, status, submitted_at, spec, cpus, memory, '
            'accelerators, num_nodes, boot_id, updated_seq) '
            "VALUES (?, ?, 'PENDING', ?, ?, ?, ?, ?, ?, ?, ?)",
            (spec['name'], spec['user'], now, json.dumps(spec), res['cpus'], res['memory'],
             json.dumps(res['accelerators']) if res['accelerators'] else None,
             spec['num_nodes'], boot, txn.seq()))
        job_id = cur.lastrowid
        launches = scheduler.claim(conn, txn, boot, now, ctx.paths, {job_id: secrets})
        if secrets and job_id not in [l[0] for l in launches]:
            pending_secrets.store(ctx.paths, job_id, secrets)  # it waits: so do its values
    scheduler.launch(ctx, launches)
    daemon_ctl.ensure(ctx)
    status = conn.execute('SELECT status FROM jobs WHERE job_id = ?', (job_id,)).fetchone()[0]
    return {'job_id': job_id, 'status': status}


COLUMNS = ('job_id', 'name', 'user', 'status', 'submitted_at', 'started_at', 'ended_at',
           'exit_code', 'reason', 'cpus', 'memory', 'accelerators', 'num_nodes', 'driver_pid',
           'isolation')
_HAVE_JSON1 = None


def _have_json1(conn):
    global _HAVE_JSON1
    if _HAVE_JSON1 is None:
        try:
            conn.execute('SELECT json_array(1)').fetchone()
            _HAVE_JSON1 = True
        except Exception:
            _HAVE_JSON1 = False
    return _HAVE_JSON1


def queue(ctx, args):
    """Rows changed since `since` (a cursor from an earlier answer), or all rows.

    Rows come as arrays in COLUMNS order: with 10,000 jobs that is what keeps a full answer
    within tens of milliseconds (SQLite builds the JSON text itself when it can).
    """
    since = args.get('since')
    if since is not None and (isinstance(since, bool) or not isinstance(since, int) or since < 0):
        raise bad_args('since must be a non-negative integer cursor')
    where, params = [], []
    user = args.get('user')
    if user is not None:
        if not isinstance(user, str):
            raise bad_args('user must be a string')
        where.append('user = ?')
        params.append(user)
    ids = args.get('job_ids')
    if ids is not None:
        ids = parse_job_ids(ids)
        where.append('job_id IN (%s)' % ','.join('?' * len(ids)))
        params.extend(ids)
    if not ctx.has_db():
        return {'db_id': None, 'cursor': 0, 'full': True, 'columns': list(COLUMNS), 'rows': []}
    on_read(ctx)  # a dead driver is FAILED_DRIVER before anyone reads RUNNING
    conn = ctx.conn()
    conn.execute('BEGIN')  # one snapshot for the cursor and the rows
    try:
        db_id = db.get_meta(conn, 'db_id')
        full = since is None or args.get('db_id') not in (None, db_id)
        if not full:
            where.append('updated_seq > ?')
            params.append(since)
        cursor = conn.execute('SELECT COALESCE(MAX(updated_seq), 0) FROM jobs').fetchone()[0]
        cond = (' WHERE ' + ' AND '.join(where)) if where else ''
        cache = ctx.queue_cache
        if full and not where and cache is not None and _have_json1(conn):
            rows = cache.full(conn, db_id, cursor)
        elif _have_json1(conn):
            text = conn.execute(
                'SELECT json_group_array(json_array(%s)) FROM (SELECT %s FROM jobs%s '
                'ORDER BY job_id)' % (','.join('json(accelerators)' if c == 'accelerators' else c
                                               for c in COLUMNS), ','.join(COLUMNS), cond),
                params).fetchone()[0]
            rows = Raw((text or '[]').encode('utf-8'))
        else:
            rows = [list(r) for r in conn.execute(
                'SELECT %s FROM jobs%s ORDER BY job_id' % (','.join(COLUMNS), cond), params)]
            for r in rows:
                r[11] = json.loads(r[11]) if r[11] else None
        alive = full and conn.execute('SELECT 1 FROM jobs WHERE status IN (%s) LIMIT 1' %
                                      sql_list(NON_TERMINAL)).fetchone()
    finally:
        conn.execute('COMMIT')
    if alive:
        daemon_ctl.ensure(ctx)  # restart the liveness daemon if it died
    return {'db_id': db_id, 'cursor': cursor, 'full': full, 'columns': list(COLUMNS),
            'rows': rows}


class QueueCache(object):
    """A serve connection's copy of every row's JSON text, brought up to date from the change
    counter: a repeated full `queue` costs a delta query and a join, not 10,000 rows."""

    def __init__(self):
        self.db_id = None
        self.cursor = -1
        self.rows = {}
        self.order = []
        self.text = None

    def full(self, conn, db_id, cursor):
        """Inside the caller's read snapshot, whose change counter is `cursor`."""
        if db_id != self.db_id:
            self.__init__()
            self.db_id = db_id
        if cursor != self.cursor:
            changed = conn.execute(
                'SELECT job_id, json_array(%s) FROM jobs WHERE updated_seq > ? ORDER BY job_id' %
                ','.join('json(accelerators)' if c == 'accelerators' else c for c in COLUMNS),
                (self.cursor,)).fetchall()
            last = self.order[-1] if self.order else 0
            fresh = [j for j, _ in changed if j not in self.rows]
            self.rows.update(changed)
            if fresh and fresh[0] > last:
                self.order.extend(fresh)  # new jobs come with higher ids
            elif fresh:
                self.order = sorted(self.rows)
            self.cursor = cursor
            self.text = None
        if self.text is None:
            self.text = Raw(('[' + ','.join([self.rows[j] for j in self.order]) + ']').encode('utf-8'))
        return self.text


def status(ctx, args):
    on_read(ctx)
    conn = ctx.conn()
    boot = procs.boot_id()
    cap, source = resources.capacity(conn, boot)
    used = resources.used(conn)
    used['accelerators'] = resources.spell_like(used['accelerators'], cap.get('accelerators'))
    counts = dict((s, 0) for s in ORDER)
    for s, n in conn.execute('SELECT status, COUNT(*) FROM jobs GROUP BY status'):
        counts[s] = n
    return {'capacity': cap, 'capacity_source': source, 'used': used, 'counts': counts,
            'running': counts['SETTING_UP'] + counts['RUNNING'], 'pending': counts['PENDING'],
            'cluster': db.get_meta(conn, 'cluster', {}) or {}, 'boot_id': boot,
            'daemon_pid': daemon_ctl.running_pid(ctx.paths), 'version': VERSION,
            'autostop': _autostop_state(conn), 'isolation': _isolation(ctx),
            'devices': resources.capacity(conn, boot, with_devices=True)[2],
            'schema_version': db.user_version(conn)}


def _isolation(ctx):
    """How the processes of jobs started now are found (each job row says what it got)."""
    kind, where = cgroups.where(ctx.paths.marker_prefix)
    if kind:
        return {'mechanism': kind, 'cgroup_root': where}
    return {'mechanism': 'marker', 'why': where}


def configure(ctx, args):
    """Cluster facts the node cannot know itself: name, node IPs, declared capacity."""
    if not isinstance(args, dict):
        raise bad_args('configure takes an object')
    known = ('cluster_name', 'node_ips', 'cluster_info', 'capacity', 'workers', 'kube_head', 'autostop', 'detect')
    extra = set(args) - set(known)
    if extra:
        raise bad_args('unknown keys: %s' % ', '.join(sorted(extra)))
    cluster_updates = {}
    if 'cluster_name' in args:
        name = args['cluster_name']
        if name is not None and (not isinstance(name, str) or len(name) > spec_mod.MAX_NAME):
            raise bad_args('cluster_name must be a string of at most %d characters'
                           % spec_mod.MAX_NAME)
        cluster_updates['cluster_name'] = name
    if 'node_ips' in args:
        ips = args['node_ips']
        if ips is not None and (not isinstance(ips, list) or
                                not all(isinstance(i, str) and i and '\n' not in i for i in ips)):
            raise bad_args('node_ips must be a list of strings (head node first)')
        cluster_updates['node_ips'] = ips
    if 'cluster_info' in args:
        if args['cluster_info'] is not None and not isinstance(args['cluster_info'], dict):
            raise bad_args('cluster_info must be an object')
        cluster_updates['cluster_info'] = args['cluster_info']
    if 'workers' in args:
        cluster_updates['workers'] = nodes.parse_workers(args['workers'])
    if 'kube_head' in args:
        cluster_updates['kube_head'] = nodes.parse_kube_head(args['kube_head'])
    declared = None
    if 'capacity' in args and args['capacity'] is not None:
        declared = spec_mod.parse_resources(args['capacity'], 'capacity', defaults=False)
    if 'autostop' in args:
        stop_cfg = autostop.parse(args['autostop'])
    if not isinstance(args.get('detect', False), bool):
        raise bad_args('detect must be true or false')
    fresh = None
    if args.get('detect'):
        # Looked at before the lock (nvidia-smi can take a second) and swapped in under it: the
        # old answer stays until then, so no other process detects again in between.
        cap, devs = resources.detect()
        fresh = {'boot_id': procs.boot_id(), 'capacity': cap, 'devices': devs}
    conn = ctx.conn()
    with db.write_txn(conn):
        cluster = db.get_meta(conn, 'cluster', {}) or {}
        cluster.update(cluster_updates)
        db.set_meta(conn, 'cluster', cluster)
        if 'capacity' in args:
            db.set_meta(conn, 'declared_capacity', declared)
        if 'autostop' in args:
            db.set_meta(conn, 'autostop', stop_cfg)
        if fresh:
            db.set_meta(conn, 'detected_capacity', fresh)
    started = scheduler.step(ctx)  # more capacity may let pending jobs start now
    if started or args.get('autostop'):
        daemon_ctl.ensure(ctx)  # the daemon watches the idle clock
    if args.get('autostop'):
        daemon_ctl.wake(ctx.paths, urgent=False)  # out of watch mode (within a tick): the idle clock is the Python daemon's
    result = status(ctx, {})
    result['started'] = started
    return result


def phase(ctx, args):
    """Driver report: setup finished fine, the run phase begins."""
    job_id = args['job_id']
    conn = ctx.conn()
    with db.write_txn(conn) as txn:
        db.advance(conn, txn, job_id, 'RUNNING')
    return {}


def done(ctx, args):
    """Driver report at its very end: record the outcome, then a detached scheduling step."""
    job_id, code, ph = args['job_id'], args['exit_code'], args['phase']
    if ph == 'workdir':
        status, reason = 'FAILED_SETUP', 'could not enter the workdir (see the log)'
    elif ph == 'setup':
        status, reason = 'FAILED_SETUP', 'setup exited with code %d' % code
    elif ph == 'cgroup':
        status, reason = 'FAILED_DRIVER', 'the driver could not join the job cgroup (see driver.err)'
    elif code == 0:
        status, reason = 'SUCCEEDED', None
    else:
        status, reason = 'FAILED', 'run exited with code %d' % code
    if ph == 'run':
        # MOUNT_CACHED: not finished until the write cache reached the bucket. Cancel still
        # wins: the wait stops at the job's cancelled flag, a SIGKILL escalation kills this
        # process (the recorded driver pid, which a waiter driver's cgroup does not hold), and
        # a CANCELLED row is never moved back.
        unflushed = flushwait.wait_for_job(ctx.paths, job_id)
        if unflushed:
            status, reason = 'FAILED', unflushed if code == 0 else '%s; %s' % (reason, unflushed)
    conn = ctx.conn()
    with db.write_txn(conn) as txn:
        changed = db.advance(conn, txn, job_id, status, reason=reason, exit_code=code)
    leave_cgroup(ctx, job_id)
    return {'changed': changed, 'status': status}


def nonterminal_exists(conn):
    return conn.execute('SELECT 1 FROM jobs WHERE status IN (%s) LIMIT 1' %
                        sql_list(NON_TERMINAL)).fetchone() is not None


def _autostop_state(conn):
    return autostop.state(conn)
