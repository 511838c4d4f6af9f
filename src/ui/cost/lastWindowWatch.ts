import * as vscode from 'vscode';
// Small files of node builtins only (no state DB, no ops): the shell loads them at activation.
import { otherWindows, ownLease, removeLease, sweepDead, writeLease, LEASE_RENEW_MS, type LeaseCheck, type WindowLease } from '../../core/cost/windowLeases';
import { becameLastWithBilling, clusterSetKey, lastCloseMessage, lastWindowMessage, recordLastClose, takeLastClose, unguardedClusters, type UnguardedCluster } from '../../core/cost/lastWindow';
import { readIndex } from '../../core/cost/userIndex';
import { notify } from '../notify';

export interface LastWindowDeps {
  /** The per-user Skydeck directory (tests pass a scratch one; default ~/.skydeck or SKYDECK_HOME). */
  home?: string;
  /** This window's folder: its own clusters are the ones its buttons can act on. */
  workspaceRoot?: string;
  /** Where "Don't warn again" keeps the silenced cluster sets. */
  memento: vscode.Memento;
  log(message: string): void;
  now?: () => number;
  check?: LeaseCheck;
}

const SILENCED = 'skydeck.lastWindow.silenced';
export const DONT_WARN = "Don't Warn Again for These";

/**
 * "Closing the last window with billing clusters and no autostop" (issue 20), as far as VS Code
 * allows (it cannot veto a close; see core/cost/lastWindow.ts and docs/architecture.md): this
 * window keeps a lease among the open windows, warns once when it becomes the last one while
 * clusters bill with no autostop, and, closing last, leaves a note the next window shows once.
 */
export class LastWindowWatch implements vscode.Disposable {
  private lease: WindowLease | undefined;
  private othersBefore = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly deps: LastWindowDeps) {
    this.now = deps.now ?? (() => Date.now());
  }

  /** Registers this window, starts renewing, and shows what the last window to close left, once. */
  start(): void {
    try {
      this.lease = ownLease(this.now());
      writeLease(this.lease, this.deps.home);
    } catch (e) {
      this.deps.log(`window lease: ${(e as Error).message}`);
    }
    this.tick();
    this.timer ??= setInterval(() => this.tick(), LEASE_RENEW_MS);
    void this.showLastClose();
  }

  /** Renews this window's lease and looks at the others: has this one just become the last? */
  tick(): void {
    try {
      if (this.lease) writeLease((this.lease = { ...this.lease, renewedAt: this.now() }), this.deps.home);
      const read = otherWindows(this.lease, this.now(), this.deps.home, this.deps.check);
      sweepDead(read);
      const set = this.unguarded();
      if (becameLastWithBilling(this.othersBefore, read.live.length, set, this.silencedSets())) void this.warnLast(set);
      this.othersBefore = read.live.length;
    } catch (e) {
      this.deps.log(`window lease: ${(e as Error).message}`);
    }
  }

  /** The note of the last window to close, if any window has not shown it yet. */
  async showLastClose(): Promise<void> {
    const rec = takeLastClose(this.deps.home);
    if (typeof rec === 'string') this.deps.log(`last-close note refused: ${rec}`);
    if (!rec || typeof rec === 'string') return;
    const pick = await notify.warning(lastCloseMessage(rec), 'Show Clusters');
    if (pick === 'Show Clusters') await vscode.commands.executeCommand('skydeck.clusters.focus');
  }

  /**
   * From deactivate(): synchronous (the host may not wait for more). If no other window is
   * live, leave the note of what bills unguarded. Two windows closing together each still see
   * the other and leave none (said in docs/architecture.md).
   */
  windowClosing(): void {
    this.stopTimer();
    try {
      const others = otherWindows(this.lease, this.now(), this.deps.home, this.deps.check).live.length;
      if (this.lease) removeLease(this.lease, this.deps.home);
      this.lease = undefined;
      const set = others === 0 ? this.unguarded() : [];
      if (set.length) recordLastClose({ version: 1, at: this.now(), clusters: set.map(({ name, folder, usdPerHour }) => ({ name, folder, ...(usdPerHour !== undefined ? { usdPerHour } : {}) })) }, this.deps.home);
    } catch (e) {
      this.deps.log(`last-close note: ${(e as Error).message}`);
    }
  }

  private unguarded(): UnguardedCluster[] {
    return unguardedClusters(readIndex(undefined, this.deps.home).workspaces);
  }

  /** Keys of the cluster sets the user said not to warn about again. */
  silencedSets(): Set<string> {
    const v = this.deps.memento.get<unknown>(SILENCED);
    return new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  }

  private async warnLast(set: UnguardedCluster[]): Promise<void> {
    const own = set.filter((c) => c.folder === this.deps.workspaceRoot);
    const pick = await notify.warning(lastWindowMessage(set), ...(own.length ? ['Set Autostop', 'Stop', 'Down'] : ['Show Clusters']), DONT_WARN);
    // One cluster of this folder: act on it; several: the command asks which.
    const arg = own.length === 1 ? own[0].name : undefined;
    if (pick === DONT_WARN) await this.deps.memento.update(SILENCED, [...this.silencedSets(), clusterSetKey(set)].slice(-50));
    else if (pick === 'Set Autostop') await vscode.commands.executeCommand('skydeck.setAutostop', arg);
    else if (pick === 'Stop') await vscode.commands.executeCommand('skydeck.stopCluster', arg);
    else if (pick === 'Down') await vscode.commands.executeCommand('skydeck.downCluster', arg);
    else if (pick === 'Show Clusters') await vscode.commands.executeCommand('skydeck.clusters.focus');
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Disposal without windowClosing() (the extension is disabled): drop the lease, leave no note. */
  dispose(): void {
    this.stopTimer();
    try {
      if (this.lease) removeLease(this.lease, this.deps.home);
    } catch (e) {
      this.deps.log(`window lease: ${(e as Error).message}`);
    }
    this.lease = undefined;
  }
}
