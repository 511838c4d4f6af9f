import { PLACE_FN_PY } from './placeTree';
/**
 * Python (stdlib) run on the node to apply a manifest sync. The node keeps, in STATE, only the
 * token of the last sync that finished: the digest of that sync's manifest, which the local
 * side checks before it trusts a delta (nodeListing.ts lists what the node holds).
 *
 *   apply DEST STATE < "BASE TOKEN\n" TAR → (BASE "-" for none) the tar (meta/ops.json, tree/)
 *     is unpacked into a private temp dir in DEST. Under a lock: if BASE is not "" and STATE is not BASE, exit 75
 *     (stale: sync fully). STATE is removed first, so a sync killed half-way leaves no token and
 *     the next one is full; then removals (never through a link, never outside DEST), the tree
 *     renamed into place (each file whole: old or new), touches, and TOKEN written last.
 */
export const MANIFEST_NODE_PY = String.raw`
import json, os, sys
${PLACE_FN_PY}
mode, dst, state = sys.argv[1], sys.argv[2], sys.argv[3]

def token():
    try:
        with open(state, 'rb') as f:
            return f.read(65).decode('ascii', 'replace')
    except FileNotFoundError:
        return None

real_dst = os.path.realpath(dst)
parents = {}

def inside(rel):
    # Refuse any path whose parent is not the real directory it names (a link on the way).
    # Parents are resolved once each: a workdir has far fewer directories than files.
    parts = rel.split('/')
    if not rel or any(p in ('', '.', '..') for p in parts):
        return None
    key = '/'.join(parts[:-1])
    ok = parents.get(key)
    if ok is None:
        parent = os.path.join(dst, *parts[:-1])
        ok = parents[key] = os.path.realpath(parent) == os.path.normpath(os.path.join(real_dst, *parts[:-1]))
    return os.path.join(dst, *parts) if ok else None

import fcntl, shutil, tarfile, tempfile, time

def apply_tree():
    with open(os.path.join(tmp, 'meta', 'ops.json'), 'rb') as f:
        ops = json.loads(f.read().decode('utf-8'))
    for rel in ops['remove']:
        path = inside(rel)
        if path is None or not os.path.lexists(path):
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            try:
                os.rmdir(path)  # only when empty: files a job made there stay
            except OSError:
                pass
        else:
            os.unlink(path)
    place(os.path.join(tmp, 'tree'), dst)
    for rel, sec in ops['touch']:
        path = inside(rel)
        if path is not None and os.path.isfile(path) and not os.path.islink(path):
            os.utime(path, (sec, sec))
    new = os.path.join(os.path.dirname(state), '.%s.tmp-%d' % (os.path.basename(state), os.getpid()))
    with open(new, 'w') as f:
        f.write(new_token)
    # No fsync: a torn file after a power cut has another digest, and the next sync is full.
    os.replace(new, state)

# Started before the sync knows what it sends (the trees are listed meanwhile), so BASE and TOKEN
# come first on stdin; nothing there means the sync stopped first, and nothing is touched.
head = sys.stdin.buffer.readline().decode('ascii', 'replace').split()
if not head:
    sys.exit(0)
hex64 = lambda v: len(v) == 64 and all(c in '0123456789abcdef' for c in v)
if len(head) != 2 or not (head[0] == '-' or hex64(head[0])) or not hex64(head[1]):
    sys.exit('bad sync header')
base, new_token = ('' if head[0] == '-' else head[0]), head[1]
os.makedirs(dst, exist_ok=True)
tmp = tempfile.mkdtemp(prefix='.skydeck-sync.', dir=dst)
try:
    # The tar on stdin is read here (no tar binary, fewer processes). Skydeck wrote it, but its
    # names are checked anyway: meta/ or tree/, relative, no "..".
    with tarfile.open(fileobj=sys.stdin.buffer, mode='r|') as tar:
        for member in tar:
            parts = member.name.rstrip('/').split('/')
            if parts[0] not in ('meta', 'tree') or member.name.startswith('/') or '..' in parts or not (member.isfile() or member.isdir() or member.issym()):
                sys.exit('refusing archive member %r' % member.name)
            if member.isdir():
                # Made plainly: a read-only mode on a directory would stop its files landing.
                os.makedirs(os.path.join(tmp, member.name), exist_ok=True)
            elif hasattr(tarfile, 'fully_trusted_filter'):
                tar.extract(member, tmp, filter='fully_trusted')
            else:
                tar.extract(member, tmp)
    os.makedirs(os.path.dirname(state), exist_ok=True)
    lock = open(state + '.lock', 'a')
    fcntl.flock(lock, fcntl.LOCK_EX)
    if base and token() != base:
        sys.stderr.write('the node holds another sync than this delta was made for\n'); sys.exit(75)
    if os.path.lexists(state):
        os.unlink(state)
    # Anything whose inode changes from here on is listed by the next drift check (ctime cannot
    # be set back); a second's slack for the kernel's coarse clock.
    since = state + '.since'
    open(since, 'w').close()
    t = time.time() - 1
    os.utime(since, (t, t))
    apply_tree()
finally:
    shutil.rmtree(tmp, ignore_errors=True)
`;
