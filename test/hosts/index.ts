// Real sshd test hosts on loopback: startHosts(n) gives n "machines" at 127.0.0.2, 127.0.0.3, …
// each with its own Linux user, home, host key and PID namespace. See TESTING.md "Real SSH hosts".
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SshdHost, type TestHost } from './sshdHost';
import { freePort, missingPrerequisites, runOk } from './system';
import { createUser, reapStaleUsers, removeUser, removeUserSync, type TestUser } from './users';

export type { TestHost } from './sshdHost';

export interface StartHostsOptions {
  /** Last octet of the first host's address (default 2 → 127.0.0.2). */
  firstAddress?: number;
  /** Extra sshd_config lines for every host (e.g. "MaxSessions 2"). */
  sshdConfig?: string[];
}

export interface TestHosts {
  hosts: TestHost[];
  /** Private key (ed25519, no passphrase) authorized on every host. */
  clientKeyPath: string;
  clientPublicKey: string;
  /** Scratch directory of this harness (removed by stop()). */
  dir: string;
  /** A known_hosts line for the host: "[127.0.0.2]:PORT ssh-ed25519 AAAA…". */
  knownHostsLine(host: TestHost): string;
  /** Kills every process the harness started, removes its users and files. Idempotent. */
  stop(): Promise<void>;
}

export async function startHosts(n: number, opts: StartHostsOptions = {}): Promise<TestHosts> {
  const missing = missingPrerequisites();
  if (missing.length) {
    throw new Error(`Cannot start real sshd test hosts; missing: ${missing.join('; ')}`);
  }
  const first = opts.firstAddress ?? 2;
  if (n < 1 || first < 2 || first + n - 1 > 254) throw new Error(`startHosts: bad host count ${n} from 127.0.0.${first}`);
  await reapStaleUsers();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skydeck-hosts-'));
  fs.chmodSync(dir, 0o755); // users must reach their homes below it
  const id = path.basename(dir).slice(-6).toLowerCase().replace(/[^a-z0-9]/g, 'x');
  const users: TestUser[] = [];
  const hosts: SshdHost[] = [];
  let stopped = false;

  const teardownSync = (): void => {
    for (const h of hosts) h.stopSync();
    for (const u of users) removeUserSync(u);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', teardownSync);

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', teardownSync);
    const errors: string[] = [];
    await Promise.all(hosts.map((h) => h.stop().catch((e: Error) => errors.push(e.message))));
    for (const u of users) await removeUser(u).catch((e: Error) => errors.push(e.message));
    fs.rmSync(dir, { recursive: true, force: true });
    if (errors.length) throw new Error(`test host teardown: ${errors.join('; ')}`);
  };

  try {
    const clientKeyPath = path.join(dir, 'client', 'id_ed25519');
    fs.mkdirSync(path.dirname(clientKeyPath), { mode: 0o700 });
    await keygen(clientKeyPath, `skydeck-test-client-${id}`);
    const clientPublicKey = fs.readFileSync(`${clientKeyPath}.pub`, 'utf8').trim();

    for (let i = 0; i < n; i++) {
      const octet = first + i;
      const name = `h${octet}`;
      const address = `127.0.0.${octet}`;
      const hostDir = path.join(dir, name);
      fs.mkdirSync(hostDir, { mode: 0o755 });
      const user = await createUser(`sdk-${id}-${name}`, path.join(dir, 'home', name));
      users.push(user);

      const hostKeyPath = path.join(hostDir, 'ssh_host_ed25519_key');
      await keygen(hostKeyPath, `${name}-host`);
      const hostPublicKey = fs.readFileSync(`${hostKeyPath}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ');
      const hostKeyFingerprint = (await runOk('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKeyPath}.pub`])).split(' ')[1];

      const sshDir = path.join(user.home, '.ssh');
      fs.mkdirSync(sshDir, { recursive: true, mode: 0o700 });
      const authorizedKeysPath = path.join(sshDir, 'authorized_keys');
      fs.writeFileSync(authorizedKeysPath, `${clientPublicKey}\n`, { mode: 0o600 });
      fs.chownSync(sshDir, user.uid, user.gid);
      fs.chownSync(authorizedKeysPath, user.uid, user.gid);

      const host = new SshdHost({
        name, address, port: await freePort(address), dir: hostDir, user,
        hostKeyPath, hostPublicKey, hostKeyFingerprint, authorizedKeysPath,
        extraConfig: opts.sshdConfig ?? [],
      });
      hosts.push(host);
    }
    await Promise.all(hosts.map((h) => h.start()));

    return {
      hosts,
      clientKeyPath,
      clientPublicKey,
      dir,
      knownHostsLine: (h) => `[${h.address}]:${h.port} ${h.hostPublicKey}`,
      stop,
    };
  } catch (e) {
    await stop().catch(() => undefined);
    throw e;
  }
}

async function keygen(file: string, comment: string): Promise<void> {
  await runOk('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file]);
}
