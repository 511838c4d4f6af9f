// A cluster (default 3 nodes) for the agent's gang jobs: the head agent runs on this machine (a scratch
// base dir), the two workers are real sshd test hosts with the agent installed in their homes.
// The head reaches them with a cluster key and their verified host keys, as a launch sets up.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startHosts, type TestHost, type TestHosts } from '../../hosts';
import { AgentFixture, AGENT, PY, ServeClient } from '../../unit/agent/helpers';

export interface GangCluster {
  head: AgentFixture;
  hosts: TestHosts;
  workers: TestHost[];
  client: ServeClient;
  /** Processes of a command line pattern on a worker (pgrep inside its namespace). */
  workerPids(w: TestHost, pattern: string): Promise<number[]>;
  stop(): Promise<void>;
}

export async function startGangCluster(opts: { cpusPerNode?: number; workers?: number; env?: NodeJS.ProcessEnv } = {}): Promise<GangCluster> {
  const hosts = await startHosts(opts.workers ?? 2);
  const head = new AgentFixture();
  head.setup();
  const agentDir = path.dirname(AGENT);
  for (const w of hosts.hosts) {
    const dest = path.join(w.home, '.skydeck', 'agent');
    fs.mkdirSync(dest, { recursive: true });
    execFileSync('cp', ['-r', `${agentDir}/.`, dest]);
    execFileSync('chown', ['-R', `${w.user}:`, path.join(w.home, '.skydeck')]);
  }
  fs.copyFileSync(hosts.clientKeyPath, path.join(head.base, 'cluster_key'));
  fs.chmodSync(path.join(head.base, 'cluster_key'), 0o600);
  fs.writeFileSync(path.join(head.base, 'cluster_known_hosts'), hosts.hosts.map((h) => hosts.knownHostsLine(h)).join('\n') + '\n');
  const client = head.serve(opts.env);
  await client.call('configure', {
    cluster_name: 'gang',
    node_ips: ['127.0.0.1', ...hosts.hosts.map((h) => h.address)],
    workers: hosts.hosts.map((h) => ({
      address: h.address, port: h.port, user: h.user, python: PY,
      agent: path.join(h.home, '.skydeck', 'agent', 'skydeck_agent.py'), base: path.join(h.home, '.skydeck'),
    })),
    capacity: { cpus: opts.cpusPerNode ?? 1 },
  });
  return {
    head, hosts, workers: hosts.hosts, client,
    async workerPids(w, pattern) {
      // The bracket keeps pgrep's own shell from matching the pattern.
      const r = await w.exec(`pgrep -f '${pattern.replace(/^(.)/, '[$1]')}' || true`);
      return r.stdout.split('\n').filter(Boolean).map(Number);
    },
    async stop() {
      await head.cleanup();
      await hosts.stop();
    },
  };
}
