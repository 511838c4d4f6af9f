/** A machine Skydeck reaches over SSH. */
export interface HostSpec {
  address: string;
  port: number;
  user: string;
  identityFile?: string;
  /** One jump host (ProxyJump). */
  proxyJump?: HostSpec;
}

/**
 * Parses `[user@]host[:port]` (IPv6 as `[addr]:port`). Fields missing from the string come
 * from `defaults`; returns an error message for anything else.
 */
export function parseHostString(s: string, defaults: { user?: string; port?: number }): HostSpec | string {
  const m = /^(?:([^@\s]+)@)?(\[[0-9a-fA-F:.]+\]|[^\s:@[\]]+)(?::(\d{1,5}))?$/.exec(s.trim());
  if (!m) return `"${s}" is not a host; write host, user@host or user@host:port`;
  const port = m[3] ? Number(m[3]) : defaults.port ?? 22;
  if (port < 1 || port > 65535) return `port ${port} in "${s}" is out of range (1-65535)`;
  const user = m[1] ?? defaults.user;
  if (!user) return `no user for "${s}": write user@${m[2]} or give the pool a "user"`;
  return { address: m[2].replace(/^\[|\]$/g, ''), port, user };
}

export function hostKey(h: HostSpec): string {
  return `${h.user}@${h.address}:${h.port}`;
}
