// One SSH connection per user@host:port, shared by every transport (and so every user of it)
// that targets it; closed when the last one closes. The first transport's settings (keys,
// host-key policy) are the connection's settings.
import { SshConnection, connectionKey, type ConnectionOwner, type ConnectionSettings } from './sshConnection';

export class SshPool implements ConnectionOwner {
  private readonly conns = new Map<string, SshConnection>();

  acquire(settings: ConnectionSettings): SshConnection {
    const key = connectionKey(settings);
    let conn = this.conns.get(key);
    if (!conn || conn.isEnded) {
      conn = new SshConnection(settings, this);
      this.conns.set(key, conn);
    }
    conn.refs++;
    return conn;
  }

  async release(conn: SshConnection): Promise<void> {
    if (--conn.refs > 0) return;
    if (this.conns.get(conn.key) === conn) this.conns.delete(conn.key);
    await conn.end();
  }

  /** Open connections, for diagnostics and tests. */
  get size(): number { return this.conns.size; }

  has(key: string): boolean { return this.conns.has(key); }

  /** Ends every connection (extension deactivation, CLI exit). */
  async closeAll(): Promise<void> {
    const all = [...this.conns.values()];
    this.conns.clear();
    await Promise.all(all.map((c) => { c.refs = 0; return c.end(); }));
  }
}

/** The process-wide pool used unless a transport is given its own. */
export const defaultSshPool = new SshPool();
