"""Per-process state shared by the commands: paths, the lazily opened database, who we are."""
from . import db
from .paths import Paths


class Ctx(object):
    def __init__(self, base, agent_path, client=True):
        self.paths = Paths(base)
        self.agent_path = agent_path
        # client: started by a user or the extension (its environment is the jobs' base
        # environment), as opposed to a driver's report, the daemon or a detached step.
        self.client = client
        self._conn = None
        # serve only: row JSON kept between `queue` calls (see jobs.QueueCache).
        self.queue_cache = None

    def self_argv(self, *args):
        """This agent run again as an internal command (daemon, gang driver, self-stop)."""
        import sys
        return [sys.executable or 'python3', '-E', '-S', self.agent_path, '--base', self.paths.base] + list(args)

    def conn(self):
        if self._conn is None:
            self._conn = db.connect(self.paths)
        return self._conn

    def check_schema(self):
        if self._conn is not None:
            db.check_version(self._conn)

    def has_db(self):
        return self._conn is not None or db.db_exists(self.paths)

    def forget_conn(self):
        """In a forked copy: never touch the parent's connection, open a fresh one."""
        self._conn = None

    def close(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None
