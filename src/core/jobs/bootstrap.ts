import type { Transport } from '../transport';
import { shellQuote } from '../transport/shellQuote';
import { agentArchive, agentHash, agentSourceDir } from './agentBundle';

export interface AgentLocation {
  /** Absolute base dir on the node (jobs.db, logs, the agent). */
  base: string;
  /** Absolute path of the agent entry point. */
  entry: string;
  python: string;
  /** True when this call uploaded a new agent. */
  uploaded: boolean;
}

// Hashes the installed agent the way agentHash() hashes the shipped one, so a node's copy is
// trusted for what its files are, never for what a ".hash" file claims (a workspace can ship a
// local cluster's base dir). "$B/agent" must be the symlink the installer makes, to a real
// directory; a symlink inside, or anything else, reads as "not installed". Compiled caches are
// removed rather than trusted: Python would load a planted .pyc whose header matches.
// -I: no environment, no user site, and the working directory is not on sys.path.
const VERIFY = [
  'import hashlib,os,shutil,sys',
  'b,want=sys.argv[1],sys.argv[2]',
  'link=os.path.join(b,"agent"); root=os.path.join(b,"agent-"+want)',
  'ok=os.path.islink(link) and os.readlink(link)=="agent-"+want and os.path.isdir(root) and not os.path.islink(root)',
  'h=hashlib.sha256()',
  'def walk(rel):',
  ' global ok',
  ' d=os.path.join(root,rel) if rel else root',
  ' for n in sorted(os.listdir(d)):',
  '  p=os.path.join(d,n); q=rel+"/"+n if rel else n',
  '  if os.path.islink(p): ok=False; return',
  '  if n=="__pycache__" and os.path.isdir(p): shutil.rmtree(p,ignore_errors=True); continue',
  '  if n.endswith(".pyc"): os.remove(p); continue',
  '  if not rel and n==".hash": continue',
  '  if os.path.isdir(p): walk(q)',
  '  else:',
  '   with open(p,"rb") as f: h.update(q.encode()+b"\\0"+f.read()+b"\\0")',
  'if ok: walk("")',
  'print(h.hexdigest()[:16] if ok else "not-installed")',
].join('\n');

/**
 * Makes sure the node runs this Skydeck's agent, in one round trip when it already does.
 * A new version is unpacked beside the old one and switched in by renaming a symlink, so a
 * job driver calling the agent at that instant finds one complete version or the other.
 */

export async function ensureAgent(t: Transport, base?: string, dir = agentSourceDir()): Promise<AgentLocation> {
  const baseExpr = base ? shellQuote(base) : '"$HOME/.skydeck"';
  const hash = agentHash(dir);
  const find = `B=${baseExpr}; PY=$(command -v /usr/bin/python3 || command -v python3 || true); printf '%s\\n%s\\n' "$B" "$PY"; `;
  if (t.installInOneExec) {
    // The archive goes with the look (it is small): one round trip, installed or not.
    const r = await t.execShell(`${find}if [ -z "$PY" ]; then cat >/dev/null; exit 0; fi; ${installScript('"$B"', '"$PY"', hash)}`, { stdin: agentArchive(dir) });
    const [absBase, python, said] = r.stdout.toString().split('\n');
    if (r.code !== 0) throw new Error(`installing the agent on ${t.description} failed: ${r.stderr.toString().trim()}`);
    if (!python) throw noPython(t);
    return { base: absBase, entry: `${absBase}/agent/skydeck_agent.py`, python, uploaded: said?.trim() !== 'already-installed' };
  }
  const probe = await t.execShell(
    `${find}if [ -n "$PY" ] && [ -L "$B/agent" ]; then "$PY" -I -S -B -c ${shellQuote(VERIFY)} "$B" ${shellQuote(hash)} 2>/dev/null || true; fi`,
  );
  if (probe.code !== 0) throw new Error(`could not inspect ${t.description}: ${probe.stderr.toString().trim()}`);
  const [absBase, python, installed] = probe.stdout.toString().split('\n');
  if (!python) throw noPython(t);
  const entry = `${absBase}/agent/skydeck_agent.py`;
  if (installed?.trim() === hash) return { base: absBase, entry, python, uploaded: false };
  const r = await t.execShell(installScript(shellQuote(absBase), shellQuote(python), hash), { stdin: agentArchive(dir) });
  if (r.code !== 0) throw new Error(`installing the agent on ${t.description} failed: ${r.stderr.toString().trim()}`);
  return { base: absBase, entry, python, uploaded: r.stdout.toString().trim() !== 'already-installed' };
}

function noPython(t: Transport): Error {
  return new Error(`${t.description} has no python3 (the Skydeck agent needs Python 3.8 or newer): install python3 there`);
}

// Holds an flock on argv[1] (waiting up to 2 minutes), then runs argv[2] in sh with the lock's
// fd still open, so the lock lasts exactly as long as the install. The kernel drops it when the
// installer dies, even by kill -9: no stale lock to judge and take over (a mkdir lock's
// takeover raced a release and a new holder). O_NOFOLLOW: the lock path is never a link.
const LOCKED_EXEC = [
  'import fcntl,os,sys,time',
  'p=sys.argv[1]; fd=os.open(p,os.O_RDWR|os.O_CREAT|os.O_NOFOLLOW,0o600); end=time.monotonic()+120',
  'while True:',
  ' try: fcntl.flock(fd,fcntl.LOCK_EX|fcntl.LOCK_NB); break',
  ' except BlockingIOError:',
  '  if time.monotonic()>end: sys.exit("another Skydeck has been installing the agent in %s for 2 minutes (lock %s)"%(os.path.dirname(p),p))',
  '  time.sleep(0.1)',
  'os.set_inheritable(fd,True); os.execv("/bin/sh",["sh","-c",sys.argv[2]])',
].join('\n');

/** Unpacks the archive on stdin as version `hash` under base B (shell words: quoted values or "$VAR"). */
function installScript(b: string, py: string, hash: string): string {
  // umask 077 and a 0700 base: job specs, logs and env.json are no other user's business.
  // One installer at a time per base (two launches of one cluster, two windows on one ssh host
  // share it): each removes the others' half-installs.
  return (
    `set -e; umask 077; B=${b}; PY=${py}; V=${shellQuote(`agent-${hash}`)}; mkdir -p "$B"; chmod 700 "$B"; export B PY V; ` +
    `exec "$PY" -I -S -c ${shellQuote(LOCKED_EXEC)} "$B/.install.flock" ${shellQuote(lockedInstall(hash))}`
  );
}

/** The install proper, run under the lock with B, PY and V in its environment. */
function lockedInstall(hash: string): string {
  return (
    `set -e; umask 077; ` +
    // The one that held the lock may have installed this very version: then nothing to do.
    `if [ "$("$PY" -I -S -B -c ${shellQuote(VERIFY)} "$B" ${shellQuote(hash)} 2>/dev/null || true)" = ${shellQuote(hash)} ]; then ` +
    `cat >/dev/null; echo already-installed; exit 0; fi; ` +
    `rm -rf "$B/$V.tmp"; mkdir -p "$B/$V.tmp"; tar -xf - -C "$B/$V.tmp"; ` +
    `printf '%s\\n' ${shellQuote(hash)} > "$B/$V.tmp/.hash"; rm -rf "$B/$V"; mv "$B/$V.tmp" "$B/$V"; ` +
    `OLD=$(readlink "$B/agent" 2>/dev/null || true); ln -sfn "$V" "$B/agent.link"; ` +
    // os.replace is an atomic rename everywhere (mv -T is GNU-only); a directory left by an
    // older layout is moved out of the way first.
    `if [ -d "$B/agent" ] && [ ! -L "$B/agent" ]; then rm -rf "$B/agent.old"; mv "$B/agent" "$B/agent.old"; fi; ` +
    `"$PY" -I -S -c 'import os,sys; os.replace(sys.argv[1], sys.argv[2])' "$B/agent.link" "$B/agent"; ` +
    // Keep the new version and the one before it; drop older ones and crashed half-installs.
    `for d in "$B"/agent-*; do n=\${d##*/}; [ "$n" = "$V" ] || [ "$n" = "$OLD" ] || rm -rf "$d"; done`);
}
