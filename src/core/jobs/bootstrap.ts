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

/**
 * Makes sure the node runs this Skydeck's agent, in one round trip when it already does.
 * A new version is unpacked beside the old one and switched in by renaming a symlink, so a
 * job driver calling the agent at that instant finds one complete version or the other.
 */
export async function ensureAgent(t: Transport, base?: string, dir = agentSourceDir()): Promise<AgentLocation> {
  const baseExpr = base ? shellQuote(base) : '"$HOME/.skydeck"';
  const probe = await t.execShell(
    `B=${baseExpr}; PY=$(command -v /usr/bin/python3 || command -v python3 || true); ` +
      `printf '%s\\n%s\\n' "$B" "$PY"; cat "$B/agent/.hash" 2>/dev/null || true`,
  );
  if (probe.code !== 0) throw new Error(`could not inspect ${t.description}: ${probe.stderr.toString().trim()}`);
  const [absBase, python, remoteHash] = probe.stdout.toString().split('\n');
  if (!python) {
    throw new Error(`${t.description} has no python3 (the Skydeck agent needs Python 3.8 or newer): install python3 there`);
  }
  const hash = agentHash(dir);
  const entry = `${absBase}/agent/skydeck_agent.py`;
  if (remoteHash?.trim() === hash) return { base: absBase, entry, python, uploaded: false };
  const version = `agent-${hash}`;
  const install =
    // umask 077 and a 0700 base: job specs, logs and env.json are no other user's business.
    `set -e; umask 077; B=${shellQuote(absBase)}; V=${shellQuote(version)}; mkdir -p "$B"; chmod 700 "$B"; ` +
    `rm -rf "$B/$V.tmp"; mkdir -p "$B/$V.tmp"; tar -xf - -C "$B/$V.tmp"; ` +
    `printf '%s\\n' ${shellQuote(hash)} > "$B/$V.tmp/.hash"; rm -rf "$B/$V"; mv "$B/$V.tmp" "$B/$V"; ` +
    `OLD=$(readlink "$B/agent" 2>/dev/null || true); ln -sfn "$V" "$B/agent.link"; ` +
    // os.replace is an atomic rename everywhere (mv -T is GNU-only); a directory left by an
    // older layout is moved out of the way first.
    `if [ -d "$B/agent" ] && [ ! -L "$B/agent" ]; then rm -rf "$B/agent.old"; mv "$B/agent" "$B/agent.old"; fi; ` +
    `${shellQuote(python)} -c 'import os,sys; os.replace(sys.argv[1], sys.argv[2])' "$B/agent.link" "$B/agent"; ` +
    // Keep the new version and the one before it; drop older ones and crashed half-installs.
    `for d in "$B"/agent-*; do n=\${d##*/}; [ "$n" = "$V" ] || [ "$n" = "$OLD" ] || rm -rf "$d"; done`;
  const r = await t.execShell(install, { stdin: agentArchive(dir) });
  if (r.code !== 0) throw new Error(`installing the agent on ${t.description} failed: ${r.stderr.toString().trim()}`);
  return { base: absBase, entry, python, uploaded: true };
}
