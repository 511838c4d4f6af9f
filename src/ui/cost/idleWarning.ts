import * as vscode from 'vscode';
import type { ClustersModel } from '../tree/clustersModel';
import { notify } from '../notify';

/** Minutes an UP cluster may sit with no job before the warning; 0 turns it off. */
export function idleWarningMinutes(): number {
  const v = vscode.workspace.getConfiguration('skydeck').get<number>('cost.idleWarningMinutes', 30);
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 30;
}

/**
 * Warns once per cluster (uid) that is UP, runs and queues no job, and has no autostop, for
 * longer than the setting: it bills for nothing. Idle time counts from the first reload that
 * saw it idle, so a window opened on an idle cluster waits the full period before warning.
 */
export class IdleWarning implements vscode.Disposable {
  private readonly idleSince = new Map<string, number>();
  private readonly warned = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor(private readonly model: ClustersModel, private readonly now = () => Date.now()) {
    this.unsubscribe = model.onDidChange(() => this.check());
  }

  check(): void {
    const minutes = idleWarningMinutes();
    const seen = new Set<string>();
    for (const c of this.model.all) {
      if (c.status !== 'UP' || c.autostop_minutes !== null || c.provider === 'local' || c.provider === 'ssh') continue;
      const busy = this.model.jobsOf(c.name).some((j) => j.status === 'RUNNING' || j.status === 'PENDING' || j.status === 'SETTING_UP' || j.status === 'INIT');
      if (busy || this.model.errorOf(c.name)) continue;
      seen.add(c.uid);
      const since = this.idleSince.get(c.uid) ?? this.now();
      this.idleSince.set(c.uid, since);
      if (minutes > 0 && !this.warned.has(c.uid) && this.now() - since >= minutes * 60_000) {
        this.warned.add(c.uid);
        void this.warn(c.name, this.model.costOf(c.uid)?.rate, Math.round((this.now() - since) / 60_000));
      }
    }
    for (const uid of [...this.idleSince.keys()]) if (!seen.has(uid)) this.idleSince.delete(uid);
  }

  private async warn(name: string, rate: string | undefined, idleMin: number): Promise<void> {
    const pick = await notify.warning(
      `Cluster ${name} has run no job for ${idleMin} min and has no autostop; it is still billing${rate ? ` ${rate}` : ''}.`,
      'Stop', 'Down', 'Set Autostop',
    );
    if (pick === 'Stop') await vscode.commands.executeCommand('skydeck.stopCluster', name);
    else if (pick === 'Down') await vscode.commands.executeCommand('skydeck.downCluster', name);
    else if (pick === 'Set Autostop') await vscode.commands.executeCommand('skydeck.setAutostop', name);
  }

  dispose(): void {
    this.unsubscribe();
  }
}
