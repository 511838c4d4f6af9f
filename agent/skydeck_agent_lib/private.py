"""The agent's files are private to its user: the base dir is 0700 and everything the agent
creates under it is 0600 (umask 077), so other users of a shared host read no job spec, env
or log. The user's own umask is remembered and restored for the job's commands, which should
create files the way they would in the user's login shell."""
import os

UMASK_VAR = '_SKYDECK_UMASK'
_user_umask = None


def tighten():
    """At start-up of every agent process: umask 077, remembering what it was."""
    global _user_umask
    if _user_umask is None:
        _user_umask = os.umask(0o077)
    return _user_umask


def user_umask_text():
    """The umask a client started with ('0022'), for the jobs' environment."""
    return '%04o' % (tighten() if _user_umask is None else _user_umask)


def restore_for_job(text):
    """In a job process before exec: the user's umask again (nothing when unknown)."""
    try:
        os.umask(int(text, 8))
    except (TypeError, ValueError):
        pass


def ensure_private_dir(path):
    """Create the dir 0700, or take away group/other access from one an older agent made."""
    os.makedirs(path, 0o700, exist_ok=True)
    st = os.stat(path)
    if st.st_mode & 0o077:
        os.chmod(path, st.st_mode & 0o700)
