import { PLACE_FN_PY } from './placeTree';
/**
 * Python (stdlib) run on the node to apply a manifest sync. The node keeps, in STATE, only the
 * token of the last sync that finished: the digest of that sync's manifest, which the local
 * side checks before it trusts a delta (nodeListing.ts lists what the node holds).
 *
 *   apply DEST STATE < "BASE TOKEN [NONCE]\n" TAR → (BASE "-" for none) the tar (meta/ops, tree/)
 *     is unpacked into a private temp dir in DEST. Under a lock: if BASE is not "" and STATE is not BASE, exit 75
 *     (stale: sync fully). STATE is removed first, so a sync killed half-way leaves no token and
 *     the next one is full; then removals (never through a link, never outside DEST), the tree
 *     renamed into place (each file whole: old or new), touches, and TOKEN written last.
 */
export const MANIFEST_NODE_PY = String.raw`
import os, sys, time
# Started with the sync's drift check (startApply): what changes after the check looked must be
# seen by the next one, however long the upload that comes between takes.
started = time.time()
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

# Only modules Python starts with (no tarfile, json, shutil or tempfile): their imports (re,
# collections, ...) were half the CPU this process costs on a one-file sync.
import fcntl, stat, time

def fail(msg):
    sys.stderr.write(msg + '\n')
    sys.exit(1)

read = sys.stdin.buffer.read

def exactly(n):
    b = read(n)
    if len(b) != n:
        fail('the archive ended early')  # a cut stream: nothing is applied
    return b

def octal(field):
    field = field.rstrip(b'\0 ').lstrip(b' ')
    if not field or any(c not in b'01234567' for c in field):
        fail('bad number in an archive header')
    return int(field, 8)

def cstr(field):
    return field.split(b'\0', 1)[0]

def untar(tmp):
    # The tar tarWriter.ts writes: ustar headers (types 0, 5, 2), pax (x) records for long names,
    # and the end-of-archive block, which must come: a stream cut between two members is torn,
    # not complete. Skydeck wrote it, but every name is checked: meta/ or tree/, relative, no
    # "..", and never below a link the archive made.
    pax = {}
    links = set()
    while True:
        h = exactly(512)
        if h == b'\0' * 512:
            return
        if sum(h[:148]) + 256 + sum(h[156:]) != octal(h[148:156]):
            fail('bad archive header checksum')
        kind, size = h[156:157], octal(h[124:136])
        body = exactly(size + (-size) % 512) if kind == b'x' else None
        if body is not None:
            # Records "LEN key=value\n", LEN counting the whole record.
            pax = {}
            rest = body[:size]
            while rest:
                n = int(rest[:rest.index(b' ')])
                if n <= 0:
                    fail('bad pax record')
                key, _, value = rest[rest.index(b' ') + 1:n - 1].partition(b'=')
                pax[key] = value
                rest = rest[n:]
            continue
        name = pax.get(b'path') or cstr(h[0:100])
        prefix = cstr(h[345:500])
        if prefix and b'path' not in pax:
            name = prefix + b'/' + name
        target = pax.get(b'linkpath') or cstr(h[157:257])
        pax = {}
        parts = name.rstrip(b'/').split(b'/')
        if parts[0] not in (b'meta', b'tree') or name.startswith(b'/') or b'..' in parts or kind not in (b'0', b'\0', b'5', b'2'):
            fail('refusing archive member %r' % name)
        if any(b'/'.join(parts[:i]) in links for i in range(1, len(parts) + 1)):
            fail('refusing archive member %r below a link' % name)
        path = os.path.join(tmp, name.rstrip(b'/'))
        if kind == b'5':
            # Made plainly: a read-only mode on a directory would stop its files landing.
            os.makedirs(path, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if kind == b'2':
            links.add(b'/'.join(parts))
            if os.path.lexists(path):
                os.unlink(path)
            os.symlink(target, path)
            continue
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            left = size
            while left:
                n = min(left, 1 << 20)
                chunk = memoryview(exactly(n))
                while chunk:
                    chunk = chunk[os.write(fd, chunk):]
                left -= n
        finally:
            os.close(fd)
        exactly((-size) % 512)
        os.chmod(path, octal(h[100:108]) & 0o7777)
        t = octal(h[136:148])
        os.utime(path, (t, t))

def rmtree(top):
    # Cleanup of our private temp dir only (shutil.rmtree without its import); links unfollowed.
    for root, dirs, files in os.walk(top, topdown=False):
        for n in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            try:
                os.unlink(os.path.join(root, n))
            except OSError:
                pass
        for d in dirs:
            try:
                os.rmdir(os.path.join(root, d))
            except OSError:
                pass
    try:
        os.rmdir(top)
    except OSError:
        pass

def write_atomic(path, data):
    new = os.path.join(os.path.dirname(path), '.%s.tmp-%d' % (os.path.basename(path), os.getpid()))
    with open(new, 'wb') as f:
        f.write(data)
    # No fsync: a torn file after a power cut has another digest, and the next sync is full.
    os.replace(new, path)

def expected_dirs():
    # meta/dirs (deltaArchive.ts dirsRecords): what each dir this apply changed holds now.
    try:
        with open(os.path.join(tmp, 'meta', 'dirs'), 'rb') as f:
            raw = f.read()
    except FileNotFoundError:
        return {}
    out, cur = {}, None
    for r in raw.split(b'\0'):
        if r[:1] == b'd':
            cur = out.setdefault(r[1:].decode('utf-8', 'surrogateescape'), {})
        elif r[:1] == b'n' and len(r) > 2 and cur is not None:
            cur[r[2:].decode('utf-8', 'surrogateescape')] = r[1:2].decode('ascii', 'replace')
    return out

def kind(e):
    if e.is_symlink():
        return 'l'
    if e.is_dir(follow_symlinks=False):
        return 'd'
    return 'f' if e.is_file(follow_symlinks=False) else '?'

def glob_quoted(rel):
    # find -path takes a glob: the name itself, each special character escaped.
    p = '.' if rel == '' else './' + rel
    return ''.join('\\' + c if c in '\\*?[' else c for c in p)

def record_dirs(expected):
    # Our renames moved the ctime of every dir they landed in, so the next drift check would
    # list each whole (nodeListing.ts). Instead, each such dir is vouched for by (inode, ctime
    # now): trusted at that check only while its ctime is still exactly this one. A job's change
    # in the same clock tick as our last write keeps that ctime, so the dir is looked at only
    # once the clock (of this file system, by a probe file's ctime) has passed it: any later
    # change moves its ctime, and one made before is in what we look at. It must hold every
    # entry the new manifest puts there, each of its type, else it is not vouched for.
    if not expected or len(expected) > 5000:
        return
    try:
        if os.stat(os.path.dirname(state)).st_dev != os.stat(dst).st_dev:
            return  # another file system may keep another clock
    except OSError:
        return
    seen = {}
    for rel in expected:
        if '\n' in rel:
            continue  # the check reads records by line
        path = dst if rel == '' else inside(rel)
        try:
            st = os.lstat(path) if path else None
        except OSError:
            continue
        if st is not None and stat.S_ISDIR(st.st_mode) and st.st_ctime_ns > 0:
            seen[rel] = (path, st.st_ino, st.st_ctime_ns)
    if not seen:
        return
    newest = max(c for _, _, c in seen.values())
    probe = state + '.probe'
    give_up = time.time() + 2
    while True:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
        os.utime(probe)
        if os.lstat(probe).st_ctime_ns > newest:
            break
        if time.time() > give_up:
            return
        time.sleep(0.001)
    lines = []
    for rel, (path, ino, c) in seen.items():
        try:
            with os.scandir(path) as it:
                held = {e.name: kind(e) for e in it}
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_ino != ino or st.st_ctime_ns != c or any(held.get(n) != t for n, t in expected[rel].items()):
            continue
        lines.append(b'%d %d.%09d %s\n' % (ino, c // 1000000000, c % 1000000000, os.fsencode(glob_quoted(rel))))
    write_atomic(state + '.dirs', b''.join(lines))

def apply_tree():
    # meta/ops: NUL-separated records, "r<path>" a removal (deepest first), "t<seconds> <path>"
    # a touch (see deltaArchive.ts).
    with open(os.path.join(tmp, 'meta', 'ops'), 'rb') as f:
        records = [r.decode('utf-8', 'surrogateescape') for r in f.read().split(b'\0') if r]
    for rec in records:
        if rec[0] != 'r':
            continue
        path = inside(rec[1:])
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
    for rec in records:
        if rec[0] != 't':
            continue
        sec, _, rel = rec[1:].partition(' ')
        path = inside(rel)
        if path is not None and os.path.isfile(path) and not os.path.islink(path):
            os.utime(path, (int(sec), int(sec)))

# Started before the sync knows what it sends (the trees are listed meanwhile), so BASE and TOKEN
# come first on stdin; nothing there means the sync stopped first, and nothing is touched.
head = sys.stdin.buffer.readline().decode('ascii', 'replace').split()
if not head:
    sys.exit(0)
hex64 = lambda v: len(v) == 64 and all(c in '0123456789abcdef' for c in v)
hex16 = lambda v: len(v) == 16 and all(c in '0123456789abcdef' for c in v)
if len(head) not in (2, 3) or not (head[0] == '-' or hex64(head[0])) or not hex64(head[1]) or not all(hex16(v) for v in head[2:]):
    sys.exit('bad sync header')
base, new_token = ('' if head[0] == '-' else head[0]), head[1]
# The nonce of the apply whose token the drift check read (STATE.end, nodeListing.ts), if any.
seen_end = head[2] if len(head) == 3 else None
os.makedirs(dst, exist_ok=True)
while True:
    tmp = os.path.join(dst, '.skydeck-sync.' + os.urandom(6).hex())
    try:
        os.mkdir(tmp, 0o700)
        break
    except FileExistsError:
        continue
try:
    untar(os.fsencode(tmp))
    os.makedirs(os.path.dirname(state), exist_ok=True)
    lock = open(state + '.lock', 'a')
    fcntl.flock(lock, fcntl.LOCK_EX)
    if base and token() != base:
        sys.stderr.write('the node holds another sync than this delta was made for\n'); sys.exit(75)
    # When the apply whose token the drift check read ended (STATE.end: its nonce, and the time
    # stamped before its token was written): the check looked after then. Only that apply's,
    # by its nonce — another one, even of the same token, may have ended after the check.
    last_end = 0
    if base and seen_end:
        try:
            with open(state + '.end', 'rb') as f:
                if f.read(17).decode('ascii', 'replace').strip() == seen_end:
                    last_end = os.fstat(f.fileno()).st_mtime
        except OSError:
            pass
    for f in (state, state + '.dirs', state + '.end'):
        if os.path.lexists(f):
            os.unlink(f)
    # Anything whose inode changed since this process started (with the drift check this
    # delta was made from) is listed by the next drift check (ctime cannot be set back); a
    # second's slack for the kernel's coarse clock, and for the check's find starting first —
    # but not before that apply ended (less a coarse tick): a sync right after another does not
    # list again every file the other placed in its last second.
    since = state + '.since'
    open(since, 'w').close()
    t = max(started - 1, last_end - 0.02)
    os.utime(since, (t, t))
    apply_tree()
    expected = expected_dirs()
    rmtree(tmp)  # before the record: its removal moves the root's ctime
    try:
        record_dirs(expected)
    except OSError:
        pass  # no record (a probe that is not ours, a full disk): the next check lists them whole
    t = time.time()
    write_atomic(state + '.end', (os.urandom(8).hex() + '\n').encode('ascii'))
    os.utime(state + '.end', (t, t))
    write_atomic(state, new_token.encode('ascii'))
finally:
    rmtree(tmp)
`;
