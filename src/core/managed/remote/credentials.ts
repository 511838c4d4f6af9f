// Opt-in only (--copy-credentials, jobs.copy_credentials, SKYDECK_JOBS_COPY_CREDENTIALS=1): what
// the controller needs to launch job clusters on the user's ssh pools — the pools' entries, the
// private keys they name, and Skydeck's known_hosts — copied into <root>/access (0700) on the
// controller node. Cloud credentials of this machine are never copied. Without the opt-in the
// controller uses the node's own ~/.skydeck/ssh_pools.yaml and known_hosts.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import YAML from 'yaml';
import type { Transport } from '../../transport';
import { OpsError, type OpsContext } from '../../ops';
import type { HostSpec } from '../../clouds/hostSpec';

const hostText = (h: HostSpec) => `${h.user}@${h.address.includes(':') ? `[${h.address}]` : h.address}:${h.port}`;

/** Uploads the pools' access; returns the env that points the node's CLI at it. */
export async function copyPoolAccess(ctx: OpsContext, t: Transport, root: string): Promise<Record<string, string>> {
  const { pools, errors } = ctx.sshPools();
  if (errors.length) throw new OpsError('usage', `SSH pool configuration has problems:\n  ${errors.join('\n  ')}`);
  const dir = `${root}/access`;
  const keys = new Map<string, string>();
  const keyOn = (file: string | undefined): string | undefined => {
    if (!file) return undefined;
    if (!keys.has(file)) keys.set(file, `${dir}/keys/${createHash('sha256').update(file).digest('hex').slice(0, 12)}`);
    return keys.get(file);
  };
  const doc: Record<string, unknown> = {};
  for (const p of pools) {
    // One identity file per pool in the file's shape: each host's own, which loadSshPools gives all of them alike.
    const jump = p.hosts[0]?.proxyJump;
    doc[p.name] = {
      hosts: p.hosts.map(hostText),
      ...(p.hosts[0]?.identityFile ? { identity_file: keyOn(p.hosts[0].identityFile) } : {}),
      ...(jump ? { proxy_jump: hostText(jump) } : {}),
    };
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-access-'));
  try {
    const r = await t.exec(['/bin/sh', '-c', 'umask 077 && mkdir -p "$1/keys" && chmod 700 "$1" "$1/keys"', 'sh', dir]);
    if (r.code !== 0) throw new OpsError('failed', `could not make ${dir} on the controller: ${r.stderr.toString().trim()}`);
    for (const [local, remote] of keys) await t.upload(local, remote);
    fs.writeFileSync(path.join(tmp, 'ssh_pools.yaml'), YAML.stringify(doc), { mode: 0o600 });
    await t.upload(path.join(tmp, 'ssh_pools.yaml'), `${dir}/ssh_pools.yaml`);
    const env: Record<string, string> = { SKYDECK_SSH_POOLS: `${dir}/ssh_pools.yaml` };
    if (fs.existsSync(ctx.connections.knownHostsFile)) {
      await t.upload(ctx.connections.knownHostsFile, `${dir}/known_hosts`);
      env.SKYDECK_KNOWN_HOSTS = `${dir}/known_hosts`;
    }
    ctx.progress(`Copied ${pools.length} ssh pool entr${pools.length === 1 ? 'y' : 'ies'} and ${keys.size} key file(s) to the controller (--copy-credentials)`);
    return env;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
