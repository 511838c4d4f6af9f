// One loopback sshd host and Skydeck ops set up to reach it (its host key known, no ssh-agent,
// no ~/.ssh): what bench/ssh.ts and bench/ssh-cli.ts both start from.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startHosts, type TestHost, type TestHosts } from '../test/hosts';
import { testOps } from '../test/integration/ops/helpers';

export interface SshBenchHost {
  hosts: TestHosts;
  h: TestHost;
  ops: Awaited<ReturnType<typeof testOps>>;
  /** The ops' workspace; holds `known_hosts` for CLI runs. */
  ws: string;
}

export async function sshBenchHost(): Promise<SshBenchHost> {
  const hosts = await startHosts(1);
  const h = hosts.hosts[0];
  const pool = { name: 'bench', hosts: [{ address: h.address, port: h.port, user: h.user, identityFile: hosts.clientKeyPath }] };
  const noSsh = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-bench-nossh-'));
  const ops = await testOps({ pools: [pool], connections: { sshDefaults: { agent: false, sshDir: noSsh, userKnownHostsFiles: [] } } });
  const ws = ops.workspaceRoot;
  fs.writeFileSync(path.join(ws, 'known_hosts'), hosts.knownHostsLine(h) + '\n');
  return { hosts, h, ops, ws };
}
