import { appendEvent, deleteClusterAfterProof, getCluster, type ClusterRecord } from '../state';
import { defaultSshConfigPaths, removeClusterSshConfig } from '../access/sshConfigFile';
import { TERMINAL_STATUSES } from '../jobs';
import { claimOwner, describeOwner, FLAGS, ownerState, releaseOwner, sameOwner, type Owner } from '../provision';

import type { OpsContext } from './context';
import { OpsError } from './errors';
import { requireCluster } from './findCluster';
import { readHandle } from './clusterHandle';
import { isProviderCluster } from './providerEnv';
import { downProvider } from './downProvider';
import { detachWorkerBuckets, downWorkers } from './multiNode';
import { detachBuckets } from './bucketAttach';
import { deleteClusterBuckets } from './bucketDelete';
import { unmountCloudBuckets } from './cloudUnmount';
import { containerRunning, removeClusterContainer, removeContainerAndBase } from './containerLaunch';

export interface DownOptions {
  graceSeconds?: number;
  /** Forget the cluster even if its machines cannot be reached to clean them up. */
  purge?: boolean;
}

/**
 * Tears down a cluster. Cloud clusters: bucket mounts off (cloudUnmount.ts), then downProvider.ts. A local or ssh cluster: cancels every job (TERM, then KILL after the grace),
 * waits until the agent reports none alive, stops the agent, removes Skydeck's directory on
 * the machine, and only then forgets the cluster. Nothing else on the machine is touched.
 */
export async function down(ctx: OpsContext, name: string, opts: DownOptions = {}): Promise<{ cleaned: boolean; notes: string[]; uid: string }> {
  const row = await requireCluster(ctx, name, false);
  const result = isProviderCluster(row) ? await downCloud(ctx, row, !!opts.purge) : await downReachable(ctx, row, opts);
  if (result.cleaned) result.notes.push(...(await deleteClusterBuckets(ctx, row)));
  // The cluster is gone: so is the Host entry Connect with Remote-SSH wrote for it, unless a
  // relaunch of the name owns that entry by now.
  const now = await ctx.store.read((db) => getCluster(db, name)).catch(() => undefined);
  if (!now || now.uid === row.uid) removeClusterSshConfig(defaultSshConfigPaths(), name);
  // Every deletion names the uid it proved gone: the name may already be someone else's.
  return { ...result, uid: row.uid };
}

/** A cloud cluster: its bucket mounts go first (best-effort, cloudUnmount.ts), then its instances. */
async function downCloud(ctx: OpsContext, row: ClusterRecord, purge: boolean): Promise<{ cleaned: boolean; notes: string[] }> {
  const mounts = await unmountCloudBuckets(ctx, row);
  const r = await downProvider(ctx, row, purge);
  return { ...r, notes: [...mounts.notes, ...mounts.warnings, ...r.notes] };
}

/** This down no longer owns the cluster it started for: it stops without touching anything. */
class NotOurs extends Error {}

/**
 * A local/ssh cluster's agent and directory are addressed by host, not by uid, so a down
 * must be the only one acting on its uid, and the row must stay that uid's until the down
 * deletes it (launch refuses a row flagged "terminating"). The claim is the row's flag plus
 * this down's owner in the handle; a second down waits for a live owner and takes over a
 * dead one's. Each destructive step re-checks the claim.
 */
async function downReachable(ctx: OpsContext, start: ClusterRecord, opts: DownOptions): Promise<{ cleaned: boolean; notes: string[] }> {
  const name = start.name;
  const owner = claimOwner();
  try {
    const claimed = await claim(ctx, start, owner);
    if (claimed !== 'claimed') return claimed;
    return await tearDown(ctx, start, owner, opts);
  } finally {
    releaseOwner(owner);
    await ctx.connections.forget(name).catch(() => undefined);
  }
}

async function claim(ctx: OpsContext, start: ClusterRecord, owner: Owner): Promise<'claimed' | { cleaned: boolean; notes: string[] }> {
  const name = start.name;
  for (let waited = false; ; waited = true) {
    const r = await ctx.store.write((db) => {
      const cur = getCluster(db, name);
      if (!cur) return { gone: true as const };
      if (cur.uid !== start.uid) return { other: cur };
      const h = readHandle(cur);
      const holder = h.downOwner && ownerState(h.downOwner) !== 'dead' ? h.downOwner : undefined;
      if (holder) return { holder, remote: ownerState(holder) === 'unknown' };
      db.run('UPDATE clusters SET flags = ?, handle = ?, updated_at = ? WHERE uid = ?', [
        FLAGS.terminating, JSON.stringify({ ...h, downOwner: owner }), Date.now(), start.uid,
      ]);
      appendEvent(db, { cluster: name, kind: 'down-started', message: `down of uid ${start.uid} by ${describeOwner(owner)}` });
      return { claimed: true as const };
    });
    if ('claimed' in r) return 'claimed';
    if ('gone' in r) return { cleaned: true, notes: [`${name} (uid ${start.uid}) was already torn down by another down`] };
    if ('other' in r) throw otherUid(start, r.other as ClusterRecord);
    if (r.remote) throw new OpsError('failed', `another down of ${name} is under way (${describeOwner(r.holder)}); wait for it to finish`);
    if (!waited) ctx.progress(`Waiting for the down of ${name} already under way (${describeOwner(r.holder)})`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

function otherUid(start: ClusterRecord, cur: ClusterRecord): OpsError {
  return new OpsError('failed', `${start.name} is now another cluster (uid ${cur.uid}, launched after this down began for uid ${start.uid}); this down stopped and touched nothing of it`);
}

async function tearDown(ctx: OpsContext, row: ClusterRecord, owner: Owner, opts: DownOptions): Promise<{ cleaned: boolean; notes: string[] }> {
  const name = row.name;
  const notes: string[] = [];
  const grace = opts.graceSeconds ?? 10;
  const client = ctx.connections.client(row);
  // Before each step that acts on the machine: still our uid, still our claim.
  const ours = async () => {
    if (!holds(await ctx.store.read((db) => getCluster(db, name)), row, owner)) throw new NotOurs();
  };
  try {
    // A container that never started (or is gone) holds no job and no agent: it is removed below.
    const ctr = readHandle(row).container;
    if (ctr && !(await containerRunning(ctx, row))) {
      notes.push(`container ${ctr.name} was not running: no job or agent to stop`);
      await ours();
      notes.push(...(await removeContainerAndBase(ctx, row)));
      return await forgetRow(ctx, row, owner, notes);
    }
    ctx.progress(`Cancelling the jobs on ${name}`);
    const deadline = Date.now() + (grace + 15) * 1000;
    // Cancel until none is alive: a launch that read the row just before the flag may still
    // submit one (it then reports the job as not run, see launch.ts).
    for (;;) {
      await ours();
      await client.cancel({ all: true }, grace);
      const alive = (await client.queue()).filter((j) => !TERMINAL_STATUSES.has(j.status));
      if (alive.length === 0) break;
      if (Date.now() > deadline) throw new Error(`jobs ${alive.map((j) => j.job_id).join(', ')} are still alive after ${grace + 15} s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await ours();
    // No job is left to use them: bucket mounts go before the directories that record them
    // (the machines of ssh/local clusters live on, so a mount left behind would too).
    const headBase = (await client.connect()).base;
    const mountNotes = await Promise.all([
      detachBuckets(ctx, { name: client.transport.description, transport: client.transport, stateBase: `${headBase}/storage` }),
      detachWorkerBuckets(ctx, row),
    ]);
    notes.push(...mountNotes.flat());
    await ours();
    ctx.progress(`Stopping the agent on ${name}`);
    await client.shutdown();
    await ours();
    const workerProblems = await downWorkers(ctx, row);
    if (workerProblems.length) throw new Error(`cleaning the worker nodes failed: ${workerProblems.join('; ')}`);
    const base = (await client.connect()).base;
    await ctx.connections.forget(name);
    await ours();
    // A container cluster's base is in the container (ssh) or bind-mounted into it (local).
    if (ctr) {
      notes.push(...(await removeContainerAndBase(ctx, row)));
    } else {
      const transport = ctx.connections.transportForCluster(row);
      // A job's last process (its driver recording the end, killed by the shutdown a moment
      // ago) can still be writing there: rm then finds a directory it just emptied refilled.
      let r = await transport.exec(['rm', '-rf', '--', base]);
      for (let i = 0; i < 3 && r.code !== 0 && /not empty/i.test(r.stderr.toString()); i++) {
        await new Promise((res) => setTimeout(res, 300));
        r = await transport.exec(['rm', '-rf', '--', base]);
      }
      await transport.close();
      if (r.code !== 0) throw new Error(`removing ${base} failed: ${r.stderr.toString().trim()}`);
      notes.push(`removed ${base}${row.provider === 'ssh' ? ` on ${readHandle(row).hosts.map((h) => h.address).join(', ')}` : ''}`);
    }
  } catch (e) {
    if (e instanceof NotOurs) {
      const cur = await ctx.store.read((db) => getCluster(db, name));
      if (cur && cur.uid !== row.uid) throw otherUid(row, cur);
      throw new OpsError('failed', `another operation took over the down of ${name} (uid ${row.uid}); this one stopped`);
    }
    await ctx.connections.forget(name);
    if (!opts.purge) {
      await release(ctx, row, owner, { last_error: `down failed: ${(e as Error).message}`, flags: FLAGS.downUnconfirmed }, (e as Error).message);
      throw new OpsError('failed', `could not clean up ${name}: ${(e as Error).message}. The cluster is kept; retry, or use --purge to forget it anyway (its processes may keep running)`);
    }
    notes.push(`--purge: forgot ${name} without cleaning its machine (${(e as Error).message}); processes there may still run`);
    // Its container, though, is named by the uid: removing it is safe and stops them.
    const removed = await removeClusterContainer(ctx, row).catch((err: Error) => `container not removed: ${err.message}`);
    if (removed) notes.push(removed);
  }
  return forgetRow(ctx, row, owner, notes);
}

async function forgetRow(ctx: OpsContext, row: ClusterRecord, owner: Owner, notes: string[]): Promise<{ cleaned: boolean; notes: string[] }> {
  const name = row.name;
  const deleted = await ctx.store.write((db) => {
    if (!holds(getCluster(db, name), row, owner)) return false;
    appendEvent(db, { cluster: name, kind: 'down', message: notes.join('; '), data: { uid: row.uid } });
    return deleteClusterAfterProof(db, row.uid);
  });
  if (!deleted) throw new OpsError('failed', `${name} (uid ${row.uid}) was taken over by another operation before this down could remove it`);
  return { cleaned: !notes.some((n) => n.startsWith('--purge')), notes };
}

/** The name's row is still this down's uid, and this down still holds its claim. */
function holds(cur: ClusterRecord | undefined, row: ClusterRecord, owner: Owner): cur is ClusterRecord {
  return !!cur && cur.uid === row.uid && sameOwner(readHandle(cur).downOwner, owner);
}

/** A failed down keeps the row, flagged, and gives up its claim so a retry can take it. */
async function release(ctx: OpsContext, row: ClusterRecord, owner: Owner, patch: Partial<ClusterRecord>, message: string): Promise<void> {
  await ctx.store.write((db) => {
    const cur = getCluster(db, row.name);
    if (!holds(cur, row, owner)) return;
    const h = readHandle(cur);
    delete h.downOwner;
    const next = { ...cur, ...patch, handle: JSON.stringify(h), updated_at: Date.now() };
    db.run('UPDATE clusters SET flags = ?, last_error = ?, handle = ?, updated_at = ? WHERE uid = ?', [next.flags, next.last_error, next.handle, next.updated_at, row.uid]);
    appendEvent(db, { cluster: row.name, kind: 'down-failed', message });
  });
}
