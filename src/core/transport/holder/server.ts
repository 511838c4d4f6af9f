// The connection holder process (`skydeck __holder`): keeps SSH connections open for this user's
// CLI runs and serves exec requests on a Unix socket in a private directory (socketDir.ts).
// Nothing listens on the network. One holder per directory: a second one that finds a live
// socket exits; one whose socket was replaced exits too. With no client for idleMs it exits
// and removes its socket.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SshConnection, type ConnectionOwner } from '../sshConnection';
import { resolveSettings } from '../sshTransport';
import { ensurePrivateDir, PID_NAME, SOCKET_NAME } from './socketDir';
import { serveSession } from './session';
import type { Frame } from './frames';
import type { ExecFrame } from './protocol';
import { WorkerPool } from './workerPool';

export const DEFAULT_IDLE_MS = 10 * 60_000;

export interface HolderOptions {
  dir: string;
  idleMs?: number;
  log?: (m: string) => void;
  /** argv (after node) of a warm CLI worker (workerPool.ts); absent: whole CLI runs are refused. */
  workerArgs?: string[];
}

export interface RunningHolder {
  /** Resolves when the holder has stopped (idle, replaced, or stop()). */
  done: Promise<'idle' | 'replaced' | 'stopped' | 'another-runs'>;
  stop(): Promise<void>;
  /** SSH connections held now (tests). */
  readonly connections: number;
}

const owner: ConnectionOwner = {
  acquire: () => { throw new Error('the holder does not reach hosts through a jump host'); },
  release: async (c) => c.end(),
};

/** Connects to sock: true when a live holder answers. */
function answers(sock: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(sock);
    c.once('connect', () => { c.destroy(); resolve(true); });
    c.once('error', () => resolve(false));
  });
}

/**
 * Listens on a fresh private path, then links it into place: link() fails when the name is
 * taken, so the socket appears whole (0600) or not at all. (Closing the server later removes
 * only that private path, never the name a replacement may hold by then.)
 */
async function listen(server: net.Server, dir: string, sock: string): Promise<boolean> {
  const own = path.join(dir, `holder.${process.pid}.${randomBytes(4).toString('hex')}.sock`);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(own, () => { server.removeListener('error', reject); resolve(); });
  });
  try {
    fs.chmodSync(own, 0o600);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.linkSync(own, sock);
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      if (await answers(sock)) return false;
      // A socket left by a holder that was killed: nobody answers, take its place.
      fs.rmSync(sock, { force: true });
    }
    return false;
  } finally {
    fs.rmSync(own, { force: true });
  }
}

export async function runHolder(opts: HolderOptions): Promise<RunningHolder> {
  const log = opts.log ?? (() => undefined);
  const idleMs = opts.idleMs ?? DEFAULT_IDLE_MS;
  ensurePrivateDir(opts.dir);
  const sock = path.join(opts.dir, SOCKET_NAME);
  const conns = new Map<string, SshConnection>();
  const clients = new Set<net.Socket>();
  let finish!: (why: 'idle' | 'replaced' | 'stopped' | 'another-runs') => void;
  const done = new Promise<'idle' | 'replaced' | 'stopped' | 'another-runs'>((r) => { finish = r; });
  const pool = opts.workerArgs ? new WorkerPool(opts.workerArgs, log) : undefined;
  const host = {
    ...(pool ? { cli: (s: net.Socket, f: Frame) => pool.handle(s, f), warm: (f: Frame) => pool.hint(f) } : {}),
    connectionFor(req: ExecFrame): SshConnection {
      const t = req.target;
      // Keyed by everything that decides who we are and whom we trust, not only user@host:port.
      const key = JSON.stringify([t.user, t.host.toLowerCase(), t.port, t.keyFile, t.agent, t.useDefaultKeys, t.sshDir, t.knownHostsFiles]);
      let c = conns.get(key);
      if (!c || c.isEnded) {
        const settings = resolveSettings({
          host: t.host, port: t.port, user: t.user, keyFile: t.keyFile, agent: t.agent, useDefaultKeys: t.useDefaultKeys,
          sshDir: t.sshDir, userKnownHostsFiles: t.knownHostsFiles, trustOnFirstUse: false, log,
        });
        c = new SshConnection(settings, owner);
        conns.set(key, c);
      }
      return c;
    },
  };
  const server = net.createServer((s) => {
    clients.add(s);
    clearTimeout(idle);
    s.once('close', () => { clients.delete(s); if (!clients.size) armIdle(); });
    serveSession(s, host);
  });
  let idle: NodeJS.Timeout | undefined;
  let watch: NodeJS.Timeout | undefined;
  let ino = -1;
  const stop = async (why: 'idle' | 'replaced' | 'stopped'): Promise<void> => {
    clearTimeout(idle);
    clearInterval(watch);
    server.close();
    pool?.stop();
    for (const c of clients) c.destroy();
    // Remove only our own socket and pid file: a replacement's stay.
    if (why !== 'replaced' && fs.lstatSync(sock, { throwIfNoEntry: false })?.ino === ino) {
      fs.rmSync(sock, { force: true });
      const pidFile = path.join(opts.dir, PID_NAME);
      if (fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() === String(process.pid)) fs.rmSync(pidFile, { force: true });
    }
    await Promise.all([...conns.values()].map((c) => c.end().catch(() => undefined)));
    conns.clear();
    log(`holder stopped (${why})`);
    finish(why);
  };
  const armIdle = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => void stop('idle'), idleMs);
  };
  if (!(await listen(server, opts.dir, sock))) {
    server.close();
    finish('another-runs');
    return { done, stop: async () => undefined, connections: 0 };
  }
  ino = fs.lstatSync(sock).ino;
  // Written whole (rename), so a reader never sees it empty. It appears a moment after the
  // socket answers: whoever needs the pid waits for the file, not for the socket.
  const pidTmp = path.join(opts.dir, `${PID_NAME}.${process.pid}`);
  fs.writeFileSync(pidTmp, `${process.pid}\n`, { mode: 0o600 });
  fs.renameSync(pidTmp, path.join(opts.dir, PID_NAME));
  // Two holders that started at once may both have taken a stale socket's place; the one whose
  // socket is no longer at the path serves nobody and leaves.
  watch = setInterval(() => {
    if (fs.lstatSync(sock, { throwIfNoEntry: false })?.ino !== ino) void stop('replaced');
  }, 500);
  watch.unref();
  armIdle();
  pool?.warm();
  log(`holder listening on ${sock}`);
  return { done, stop: () => stop('stopped'), get connections() { return [...conns.values()].filter((c) => !c.isEnded).length; } };
}
