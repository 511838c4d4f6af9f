import * as os from 'node:os';
import * as readline from 'node:readline';
import { StateStore } from '../core/state';
import { loadSshPools } from '../core/clouds/sshPools';
import { cloudProviders } from '../core/clouds/registry';
import { Connections, defaultKnownHostsFile, type OpsContext } from '../core/ops';
import type { CliIO } from './io';
import { trace } from '../core/util/trace';
import { holderStarted } from './warmHint';
import { holderDir } from '../core/transport/holder/socketDir';
import type { HolderUse } from '../core/transport/holder/holderTransport';

let holderEntry: { execPath: string; args: string[] } | undefined;

/** Lets cliContext run commands through the connection holder, starting it as `execPath args… __holder`. */
export function enableHolder(execPath: string, args: string[]): void {
  holderEntry = { execPath, args };
}

function holderUse(log: ((m: string) => void) | undefined): HolderUse | undefined {
  if (!holderEntry || process.platform === 'win32' || process.env.SKYDECK_NO_HOLDER === '1') return undefined;
  const dir = holderDir();
  const entry = holderEntry;
  return {
    dir,
    log,
    start: () => {
      const { startHolder } = require('../core/transport/holder/start') as typeof import('../core/transport/holder/start');
      startHolder(entry.execPath, entry.args, dir);
      holderStarted.value = true;
    },
  };
}

/**
 * Set by a holder's worker (worker.ts), which runs many CLI runs in one process: returns the
 * Connections an earlier run with the same key made (their SSH channels and agent `serve`
 * channels still open) instead of `make()`'s, and runCli leaves them open at the end.
 */
export const connectionReuse: { get?(key: string, make: () => Connections): Connections } = {};

/**
 * The CLI's OpsContext: state in <cwd>/.skydeck (or $SKYDECK_WORKSPACE, or `root` — the
 * managed-jobs controller's own workspace), progress on stderr.
 */
export async function cliContext(io: CliIO, root = process.env.SKYDECK_WORKSPACE || process.cwd()): Promise<OpsContext> {
  trace('cli: context');
  const store = await StateStore.openWorkspace(root);
  trace('cli: state opened');
  for (const n of store.notices) io.err(`warning: ${n.message}\n`);
  const verbose = process.env.SKYDECK_VERBOSE === '1';
  const makeConnections = (): Connections => new Connections({
    workspaceRoot: root,
    knownHostsFile: process.env.SKYDECK_KNOWN_HOSTS || defaultKnownHostsFile(),
    onUnknownHostKey: (host, fp, type) => hostKeyPrompt.ask(io, host, fp, type),
    log: verbose ? (m) => io.err(`[skydeck] ${m}\n`) : undefined,
    holder: holderUse(verbose ? (m) => io.err(`[skydeck] ${m}\n`) : undefined),
    // Kept across runs: a cluster whose recorded endpoint changed gets a new connection.
    keyByHandle: !!connectionReuse.get,
  });
  return {
    store,
    workspaceRoot: root,
    sshPools: () => loadSshPools(undefined, process.env.SKYDECK_SSH_POOLS || undefined),
    connections: connectionReuse.get ? connectionReuse.get(root, makeConnections) : makeConnections(),
    progress: (step) => io.err(`⋯ ${step}\n`),
    warn: (m) => io.err(`warning: ${m}\n`),
    log: (m) => verbose && io.err(`[skydeck] ${m}\n`),
    user: safeUser(),
    // Each cloud's SDK loads when a command first touches that cloud.
    providers: cloudProviders({ log: verbose ? (m) => io.err(`[skydeck] ${m}\n`) : undefined }),
    storageCredentials: shareCredentialsFromEnv() ? 'share' : 'never',
  };
}

/** The CLI's form of skydeck.storage.shareCredentials (--share-credentials on launch/exec too). */
export function shareCredentialsFromEnv(): boolean {
  return /^(1|true|yes)$/i.test(process.env.SKYDECK_SHARE_CREDENTIALS ?? '');
}

function safeUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/** How an unknown host key is decided; a holder's worker (worker.ts) puts its own in. */
export const hostKeyPrompt = { ask: askHostKey };

/** Like ssh: ask on a terminal, refuse when nobody can answer. */
export async function askHostKey(io: CliIO, host: string, fingerprint: string, type: string): Promise<boolean> {
  if (!process.stdin.isTTY) {
    io.err(
      `The host key of ${host} is not known (${type} ${fingerprint}). Connect once with ssh to check and ` +
        `record it in ~/.ssh/known_hosts, then run this again.\n`,
    );
    return false;
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  const answer = await new Promise<string>((r) =>
    rl.question(`The authenticity of host ${host} can't be established.\n${type} key fingerprint is ${fingerprint}.\nTrust it and continue (yes/no)? `, r),
  );
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}
