// Linux users for test hosts. Each is marked in its GECOS field with the harness's pid, so a
// later run can remove users whose harness died without tearing down (SIGKILL, OOM).
import * as fs from 'node:fs';
import { isAlive, killQuietly, listProcesses, run, runOk, runSyncQuietly, type RunResult } from './system';

const MARK = 'skydeck test host, harness pid ';

export interface TestUser { name: string; uid: number; gid: number; home: string; }

export async function createUser(name: string, home: string): Promise<TestUser> {
  // Subordinate uid/gid ranges, so the user can run rootless podman (with the uidmap package):
  // useradd gives a new user a free range of SUB_UID_COUNT ids when these files exist, and
  // userdel takes it back.
  for (const f of ['/etc/subuid', '/etc/subgid']) if (!fs.existsSync(f)) fs.writeFileSync(f, '', { mode: 0o644 });
  // Password '*' = no password but not locked: with UsePAM no, sshd refuses locked ('!') accounts.
  const add = await whilePasswdLocked(() => run('useradd', ['--create-home', '--home-dir', home, '--shell', '/bin/bash',
    '--password', '*', '--comment', `${MARK}${process.pid}`, '--user-group', name]));
  if (add.code !== 0) throw new Error(`useradd ${name} exited ${add.code}: ${add.stderr.trim()}`);
  const uid = Number((await runOk('id', ['-u', name])).trim());
  const gid = Number((await runOk('id', ['-g', name])).trim());
  dropPodmanRuntimeDirs(uid);
  if (!subIdLine(name)) throw new Error(`useradd gave ${name} no range in /etc/subuid and /etc/subgid (SUB_UID_COUNT in /etc/login.defs?)`);
  return { name, uid, gid, home };
}

/**
 * useradd and userdel fail at once ("cannot lock /etc/passwd; try again later") while another
 * one holds the lock: test runs side by side (CI's two lanes) add and remove users at the same
 * time. Try again for up to ~30 s, then give back the last answer.
 */
async function whilePasswdLocked(f: () => Promise<RunResult>): Promise<RunResult> {
  for (let i = 0; ; i++) {
    const r = await f();
    if (r.code === 0 || !/cannot lock \/etc\/(passwd|group|shadow|gshadow|subuid|subgid)/.test(r.stderr) || i >= 100) return r;
    await new Promise((res) => setTimeout(res, 100 + Math.random() * 300));
  }
}

/**
 * Rootless podman keeps its runtime state (pause.pid: the user namespace to join) in
 * /tmp/podman-run-<uid> when no XDG_RUNTIME_DIR is set, as in the hosts' ssh sessions. It
 * outlives userdel; a later user given the same uid would try to join a stale namespace.
 */
function dropPodmanRuntimeDirs(uid: number): void {
  if (uid <= 0) return;
  for (const d of [`/tmp/podman-run-${uid}`, `/tmp/containers-user-${uid}`, `/tmp/run-${uid}`]) fs.rmSync(d, { recursive: true, force: true });
}

/** The user's lines in /etc/subuid and /etc/subgid, or undefined when either lacks one. */
export function subIdLine(name: string): string | undefined {
  const line = (f: string) => fs.readFileSync(f, 'utf8').split('\n').find((l) => l.startsWith(`${name}:`));
  const u = line('/etc/subuid');
  const g = line('/etc/subgid');
  return u && g ? `${u} ${g}` : undefined;
}

/** Kills what is left of the user's processes (all started by our tests), then removes it. */
export async function removeUser(user: { name: string; uid: number }): Promise<void> {
  killUserProcesses(user.uid);
  dropPodmanRuntimeDirs(user.uid);
  const r = await whilePasswdLocked(() => run('userdel', ['--remove', '--force', user.name]));
  // 6 = user does not exist; home-removal warnings (12) are fine, the harness dir goes anyway.
  if (r.code !== 0 && r.code !== 6 && r.code !== 12) {
    throw new Error(`userdel ${user.name} failed (${r.code}): ${r.stderr.trim()}`);
  }
}

export function removeUserSync(user: { name: string; uid: number }): void {
  killUserProcesses(user.uid);
  dropPodmanRuntimeDirs(user.uid);
  runSyncQuietly('userdel', ['--remove', '--force', user.name]);
}

function killUserProcesses(uid: number): void {
  if (uid <= 0) return;
  for (const p of listProcesses()) if (p.uid === uid) killQuietly(p.pid);
}

/** Removes test users left behind by harness processes that no longer exist. */
export async function reapStaleUsers(): Promise<string[]> {
  const reaped: string[] = [];
  let passwd: string;
  try { passwd = fs.readFileSync('/etc/passwd', 'utf8'); } catch { return reaped; }
  for (const line of passwd.split('\n')) {
    const [name, , uid, , gecos] = line.split(':');
    if (!gecos?.startsWith(MARK)) continue;
    const owner = Number(gecos.slice(MARK.length));
    if (owner && isAlive(owner)) continue;
    await removeUser({ name, uid: Number(uid) });
    reaped.push(name);
  }
  return reaped;
}
