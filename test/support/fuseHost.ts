// FUSE for a non-root user inside a real sshd test host. fusermount3 opens /dev/fuse with the
// user's own rights (it drops its setuid privilege for that open), so the device must be 0666
// as Debian and Ubuntu ship it. Some machines (this CI's VM) have it 0600; rather than change
// the machine, a 0666 node for the same device (char 10:229) is bind-mounted over /dev/fuse in
// the host's own mount namespace only (unshare made it private: nothing propagates out).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestHost } from '../hosts';
import { runOk } from '../hosts/system';

export async function enableFuseIn(host: TestHost, scratchDir: string): Promise<void> {
  await fuseNodeIn(host, scratchDir, 0o666);
}

/** The opposite, for the error tests: /dev/fuse in the host is root's only (0600). */
export async function restrictFuseIn(host: TestHost, scratchDir: string): Promise<void> {
  await fuseNodeIn(host, scratchDir, 0o600);
}

async function fuseNodeIn(host: TestHost, scratchDir: string, mode: number): Promise<void> {
  const init = host.initPid();
  if (init === undefined) throw new Error(`test host ${host.name} is not running`);
  const st = fs.statSync('/dev/fuse', { throwIfNoEntry: false });
  if (!st?.isCharacterDevice()) throw new Error('/dev/fuse is missing on this machine');
  const dir = fs.mkdtempSync(path.join(scratchDir, 'fuse-'));
  const node = path.join(dir, 'fuse');
  const major = Math.floor(st.rdev / 256) & 0xfff;
  const minor = (st.rdev & 0xff) | ((st.rdev >> 12) & 0xfff00);
  await runOk('mknod', [node, 'c', String(major), String(minor)]);
  fs.chmodSync(node, mode); // mknod -m cannot set the mode on every filesystem here
  await runOk('nsenter', ['--target', String(init), '--mount', '--', 'mount', '--bind', node, '/dev/fuse']);
}
