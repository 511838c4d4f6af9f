// The node's side of the drift check: is the node's last finished sync the one our manifest
// describes (its token), and what do the directories of that manifest hold now? Listing the
// directories with GNU find costs a third of a Python walk (20,000 files: ~90 ms against
// ~250 ms); a node without find's -printf (busybox) is listed by Python in the same format.
// The comparison is made here, so the node keeps only a 64-character token, not a manifest.
import { shellQuote } from '../transport/shellQuote';
import { wholeSeconds, type ManifestEntry } from './manifest';

/**
 * Python fallback lister, same output as the find commands below. argv: SINCE. stdin: the
 * NUL-separated dirs.
 */
const LIST_PY = String.raw`
import os, stat, sys
w = sys.stdout.buffer.write
try:
    since = os.stat(sys.argv[1]).st_mtime
except OSError:
    since = None
w(sys.argv[2].encode() + (b' full\n' if since is None else b' changed\n'))
for d in sys.stdin.buffer.read().split(b'\0'):
    try:
        full = since is None or os.lstat(d).st_ctime > since
        it = os.scandir(d)
    except OSError:
        continue
    if full and since is not None:
        w(b'%s\0D\0\0\0\0' % d)
    with it:
        for e in it:
            try:
                st = e.stat(follow_symlinks=False)
                m = st.st_mode
                if not full and (stat.S_ISDIR(m) or st.st_ctime <= since):
                    continue
                t = b'l' if stat.S_ISLNK(m) else b'd' if stat.S_ISDIR(m) else b'f' if stat.S_ISREG(m) else b'?'
                l = os.readlink(e.path) if t == b'l' else b''
            except OSError:
                continue
            s, ns = divmod(st.st_mtime_ns, 1000000000)
            w(b'%s\0%s\0%d\0%d.%09d\0%s\0' % (e.path, t, st.st_size, s, ns, l))
`;

const MAX_LISTING = 256 * 1024 * 1024;

const FIND_FORMAT = '%p\\0%y\\0%s\\0%T@\\0%l\\0';

/**
 * The first find of a changed-since listing, as the script of `sh -c` (xargs gives it the dirs;
 * $0: the since file, $R: the last apply's dir records, $D: where changed dirs are noted). A
 * changed dir (ctime after the since file) is a marker record unless a record of the last
 * apply vouches for it (manifestNode.ts record_dirs): the same inode, at the same path, with
 * its ctime still exactly the recorded one. Records are checked strictly before they reach
 * find: one it could not parse would end it before any output (everything "unchanged").
 * Capped, as the arguments xargs did not count must fit.
 */
const FIRST_FIND_SH = [
  'set -- "$@" -maxdepth 1 -cnewer "$0" \\( -type d \\( \\( -false',
  'n=0',
  '{ while [ $n -lt 2000 ] && IFS= read -r l; do',
  '  n=$((n + 1)); i=${l%% *}; r=${l#* }; c=${r%% *}; p=${r#* }',
  '  case $i in \'\'|*[!0-9]*|????????????????????*) continue;; esac',
  '  case $c in *.*.*|*[!0-9.]*) continue;; esac',
  '  case $c in [0-9]*.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]) ;; *) continue;; esac',
  '  case ${c%.*} in ?????????????*) continue;; esac',
  '  case $p in .|./*) ;; *) continue;; esac',
  '  set -- "$@" -o \\( -inum "$i" -path "$p" ! -newerct "@$c" \\)',
  'done < "$R"; } 2>/dev/null',
  `exec find "$@" \\) -o -printf "%p\\0D\\0\\0\\0\\0" -fprint0 "$D/$$" \\) -o -printf "${FIND_FORMAT}" \\) 2>/dev/null`,
].join('\n');

/**
 * The node script. Prints "differs" when the node's token is not `base`. Else "ok full" and
 * every entry of the dirs named on stdin ("." and "./rel", NUL-separated, one level each); or,
 * when the last apply left its start time (STATE.since), "ok changed" and only what changed
 * since (ctime): each changed dir as a marker record (type D) and then whole, and the other
 * entries whose inode changed. Errors while listing (a dir a job removed) only leave paths out
 * of a whole listing, which reads as drift: resent.
 */
export function nodeListScript(python: string, dstWord: string, stateFile: string, base: string, alt = ''): string {
  // `alt`: the token of a manifest staged but never put in place (manifestStore.ts readStagedManifest).
  const find = (args: string) => `xargs -0 -r sh -c 'exec find "$@" ${args} 2>/dev/null'`;
  return [
    // The token by the shell's own read (no head process: each exec is ~3 ms of the node's CPU
    // on the one-file path). A file of more than the token, on one line or more, still differs.
    `t=; { IFS= read -r t || :; } 2>/dev/null < ${shellQuote(stateFile)}`,
    `if [ "$t" = ${shellQuote(base)} ]; then w=ok;${alt ? ` elif [ "$t" = ${shellQuote(alt)} ]; then w=alt;` : ''} else echo differs; exit 0; fi`,
    // The nonce of the apply that wrote the token (read after it: see manifestNode.ts).
    `e=; { IFS= read -r e || :; } 2>/dev/null < ${shellQuote(`${stateFile}.end`)}; case $e in *[!0-9a-f]*) e=;; esac`,
    `cd ${dstWord} 2>/dev/null || { echo "$w full"; exit 0; }`,
    `S=${shellQuote(`${stateFile}.since`)}`,
    `R=${shellQuote(`${stateFile}.dirs`)}`,
    // A find without -newerct's "@seconds" (or -printf): no records; without -printf: Python.
    `find . -maxdepth 0 -newerct @1.5 -printf '' 2>/dev/null || R=/dev/null`,
    `if [ "$R" = /dev/null ] && ! find . -maxdepth 0 -printf '' 2>/dev/null; then exec ${shellQuote(python)} -S -c ${shellQuote(LIST_PY)} "$S" "$w"`,
    `elif [ -f "$S" ]; then`,
    '  echo "$w changed $e"',
    // One walk of the listed dirs and what they hold: what changed since, a dir as a marker
    // record (also noted in a file per find run: -fprint0 truncates), anything else as itself.
    // Then the changed dirs whole (none, mostly) — only listed ones: every listed dir but the
    // root is met twice (as a start and in its parent), a dir the job made only once, and
    // listing that whole (20,000 outputs) would make every sync's answer huge.
    '  D=$(mktemp -d) || exit 1',
    `  trap 'rm -rf "$D"' EXIT`,
    '  export D R',
    `  xargs -0 -r sh -c ${shellQuote(FIRST_FIND_SH)} "$S"`,
    // No dir changed (the usual case): nothing is listed whole, and the four processes that
    // would find that out are not started.
    '  c=; for f in "$D"/*; do [ -s "$f" ] && c=1; done',
    `  [ -z "$c" ] || { cat "$D"/* 2>/dev/null; printf '.\\0'; } | LC_ALL=C sort -z | LC_ALL=C uniq -z -d | ${find(`-mindepth 1 -maxdepth 1 -printf "${FIND_FORMAT}"`)} sh`,
    'else',
    '  echo "$w full"',
    `  ${find(`-mindepth 1 -maxdepth 1 -printf "${FIND_FORMAT}"`)} sh`,
    'fi',
    'exit 0',
  ].join('\n');
}

/** The stdin for nodeListScript: every directory of `prev`, as the node's relative paths. */
export function listedDirs(...manifests: Map<string, ManifestEntry>[]): Buffer {
  const dirs = new Set(['.']);
  for (const m of manifests) for (const e of m.values()) if (e.t === 'd') dirs.add(`./${e.p}`);
  return Buffer.from([...dirs].join('\0'));
}

/**
 * The paths of `prev` the node no longer holds as recorded (missing from a dir listed whole,
 * another type, size, whole-second mtime or link target), and everything below a drifted
 * directory: its listing may have come through a link a job put there, so none of it is
 * trusted. An entry of a dir not listed whole and not listed itself did not change (its inode,
 * and its dir's, are as the last apply left them). Undefined when the node's token is not ours.
 * Fields are compared where they lie in the output (no objects: 20,000 entries).
 */
export function nodeDrift(out: Buffer, prev: Map<string, ManifestEntry>, alt?: Map<string, ManifestEntry>): { prev: Map<string, ManifestEntry>; drift: Set<string>; nonce?: string } | undefined {
  // Millions of files a job wrote into synced dirs: a full sync rather than a string too long.
  if (out.length > MAX_LISTING) return undefined;
  const nl = out.indexOf(0x0a);
  const head = nl < 0 ? '' : out.subarray(0, nl).toString();
  const [who, how, nonce] = head.split(' ');
  if (!(who === 'ok' || (who === 'alt' && alt)) || (how !== 'full' && how !== 'changed')) return undefined;
  if (who === 'alt' && alt) prev = alt;
  const allWhole = how === 'full';
  const f = out.subarray(nl + 1).toString('utf8').split('\0');
  const at = new Map<string, number>();
  const whole = new Set<string>();
  for (let i = 0; i + 4 < f.length; i += 5) {
    const p = f[i];
    const rel = p === '.' ? '' : p.startsWith('./') ? p.slice(2) : undefined;
    if (rel === undefined) continue;
    if (f[i + 1] === 'D') whole.add(rel);
    else at.set(rel, i);
  }
  const drift = new Set<string>();
  // prev is in walk order: a directory comes before what it holds.
  for (const e of prev.values()) {
    const i = at.get(e.p);
    // Not listed, and nothing listed whole or drifted so far: unchanged (what the tests below
    // would say), without cutting out its parent's path — 20,000 strings on the one-file path.
    if (i === undefined && !allWhole && !whole.size && !drift.size) continue;
    const slash = e.p.lastIndexOf('/');
    const parent = slash < 0 ? '' : e.p.slice(0, slash);
    let ok: boolean;
    if (slash > 0 && drift.has(parent)) ok = false;
    else if (i === undefined) ok = !(allWhole || whole.has(parent));
    else {
      // The mtime exactly: a sync sets whole seconds (tar), so a job's same-second, same-size
      // write shows as a fraction.
      ok = f[i + 1] === e.t && (e.t !== 'f' || (Number(f[i + 2]) === e.s && Number(f[i + 3]) === wholeSeconds(e.m))) &&
        (e.t !== 'l' || f[i + 4] === e.l);
    }
    if (!ok) drift.add(e.p);
  }
  return { prev, drift, ...(nonce && /^[0-9a-f]{16}$/.test(nonce) ? { nonce } : {}) };
}
