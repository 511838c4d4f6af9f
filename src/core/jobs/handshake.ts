import type { Transport } from '../transport';
import { ensureAgent, type AgentLocation } from './bootstrap';
import { AGENT_PROTOCOL } from './commands';
import { AgentVersionError } from './protocolError';
import { AgentGoneError, AgentRpc, type Hello } from './rpc';
import { trace } from '../util/trace';

export interface OpenOptions {
  base?: string;
  agentDir?: string;
  log?: (message: string) => void;
  /** How long a started agent may take to greet; default HELLO_TIMEOUT_MS. */
  helloTimeoutMs?: number;
}

/**
 * An agent that started but never greets (a hung interpreter, a stopped process, a shell
 * profile that waits for input) must not hold a launch or the tree forever.
 */
export const HELLO_TIMEOUT_MS = 60_000;

/** The agent's hello, or AgentGoneError once `ms` pass without one (the channel is closed). */
async function helloWithin(rpc: AgentRpc, ms: number): Promise<Hello> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, rej) => {
    timer = setTimeout(() => rej(new AgentGoneError(`the agent started but sent no hello within ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`}`)), ms);
  });
  try {
    return await Promise.race([rpc.hello, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Installs this Skydeck's agent if the node's copy differs (ensureAgent compares a hash of the
 * files) and opens a `serve` channel whose `hello` names the protocol this client speaks.
 *
 * The agent reports its protocol; the client decides. A mismatch right after the hash check
 * means another Skydeck replaced the agent in between (two versions sharing one node's base
 * dir): the node is ours, so the agent is installed again and the channel reopened, once. A
 * second mismatch is an AgentVersionError that says which side is older and what to update
 * (or, if the node holds exactly our files, that this installation is inconsistent).
 */
export async function openAgreed(t: Transport, opts: OpenOptions): Promise<{ rpc: AgentRpc; location: AgentLocation }> {
  for (let attempt = 1; ; attempt++) {
    trace('agent: ensure');
    const location = await ensureAgent(t, opts.base, opts.agentDir);
    trace('agent: ensured');
    if (location.uploaded) opts.log?.(`installed the agent on ${t.description}`);
    const ch = await t.openChannel([location.python, location.entry, '--base', location.base, 'serve']);
    trace('agent: serve channel open');
    const rpc = new AgentRpc(ch, t.description);
    let hello;
    try {
      hello = await helloWithin(rpc, opts.helloTimeoutMs ?? HELLO_TIMEOUT_MS);
    } catch (e) {
      rpc.close();
      throw e;
    }
    trace('agent: hello');
    if (hello.protocol === AGENT_PROTOCOL) return { rpc, location };
    rpc.close();
    if (attempt >= 2) throw new AgentVersionError(t.description, hello.protocol, AGENT_PROTOCOL, hello.version, !location.uploaded);
    opts.log?.(
      `the agent on ${t.description} speaks protocol ${hello.protocol}, this Skydeck ${AGENT_PROTOCOL}; installing this Skydeck's agent again`,
    );
  }
}
