import * as vscode from 'vscode';
import type { ClustersModel } from '../tree/clustersModel';
import { testProbe } from '../testProbe';

/** `$(cloud) N up · M running · $X/h`; hidden with no clusters so it never nags users who have none. */
export class ClustersStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('skydeck.clusters', vscode.StatusBarAlignment.Left, 50);
  private readonly unsubscribe: () => void;

  constructor(private readonly model: ClustersModel) {
    this.item.name = 'Skydeck Clusters';
    // The workbench's "<view>.focus" command opens the container and the view.
    this.item.command = 'skydeck.clusters.focus';
    this.item.tooltip = 'Skydeck: show the Clusters view';
    this.unsubscribe = model.onDidChange(() => this.update());
    this.update();
  }

  private update(): void {
    const { up, running, clusters } = this.model.counts;
    const probe = testProbe();
    if (clusters === 0) {
      this.item.hide();
      if (probe) probe.statusBar = '';
      return;
    }
    // The workspace's total $/h (running nodes plus stopped clusters' disks); "unknown" if a price is.
    const rate = this.model.cost?.totalRate;
    this.item.text = `$(cloud) ${up} up · ${running} running${rate ? ` · ${rate}` : ''}`;
    this.item.show();
    if (probe) probe.statusBar = this.item.text;
  }

  dispose(): void {
    this.unsubscribe();
    this.item.dispose();
  }
}
