// For AWS tests whose clusters must really run a task: moto's instances are records, not
// machines, and the addresses it hands out are never to be connected to. This bootstrap gives
// each new cluster (by uid, in launch order) one of the loopback sshd test hosts as its head,
// so the agent is installed and the task runs there through the normal SSH path.
import type { Bootstrap } from '../../../src/core/provision';
import type { TestHosts } from '../../hosts';

export function sshdStandIn(base: Bootstrap, hosts: TestHosts): Bootstrap {
  const given = new Map<string, number>();
  return async (row, info, signal) => {
    let i = given.get(row.uid);
    if (i === undefined) given.set(row.uid, (i = given.size));
    const h = hosts.hosts[i];
    if (!h) throw new Error(`sshdStandIn: no test host left for cluster ${row.name} (${hosts.hosts.length} given out)`);
    if (info.workers.length) throw new Error('sshdStandIn: single-node clusters only');
    return base(row, { ...info, head: { id: info.head.id, address: h.address }, sshPort: h.port, sshUser: h.user, sshKeyPath: hosts.clientKeyPath }, signal);
  };
}
