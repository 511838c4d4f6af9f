import * as vscode from 'vscode';
import type { LeakedIdentity, LeakedInstance } from '../../core/provision';
import { identityTooltip, leakDescription, leakLabel, leakTooltip } from './leaksModel';

const WARN = new vscode.ThemeColor('list.warningForeground');

/** "Leaked instances" ("Leaked resources" with stray identities): shown after a sweep that found some (or could not list a cloud). */
export class LeakedGroupNode extends vscode.TreeItem {
  readonly kind = 'leaks';

  /** `identities`: the sweep also found stray cluster identities, so the node is not only about instances. */
  constructor(summary: string, identities = false) {
    super(identities ? 'Leaked resources' : 'Leaked instances', vscode.TreeItemCollapsibleState.Expanded);
    this.id = 'leaks';
    this.iconPath = new vscode.ThemeIcon('warning', WARN);
    this.description = summary;
    this.contextValue = 'leaks';
    this.tooltip = 'Instances with Skydeck tags that no cluster owns. They keep running (and costing) until terminated.'
      + (identities ? ' Cluster identities (bucket roles, service accounts, Blob grants) no cluster owns cost nothing but still grant access to buckets.' : '');
  }
}

/** Other workspaces' instances, apart: another window or checkout may still own them. */
export class OtherWorkspacesNode extends vscode.TreeItem {
  readonly kind = 'leaks-other';

  constructor(count: number) {
    super('Other workspaces', vscode.TreeItemCollapsibleState.Collapsed);
    this.id = 'leaks:other';
    this.iconPath = new vscode.ThemeIcon('folder-library');
    this.description = String(count);
    this.contextValue = 'leaks:other';
    this.tooltip = 'Launched from another workspace (another folder or machine). Its state may still own them: terminate only what you know is abandoned.';
  }
}

/** One leaked instance; its context menu has Terminate Leaked Instance. */
export class LeakedInstanceNode extends vscode.TreeItem {
  readonly kind = 'leak';

  constructor(readonly leak: LeakedInstance, readonly otherWorkspace: boolean) {
    super(leakLabel(leak), vscode.TreeItemCollapsibleState.None);
    this.id = `leak:${leak.cloud}:${leak.instance.id}`;
    this.iconPath = new vscode.ThemeIcon('vm-active', WARN);
    this.description = leakDescription(leak, otherWorkspace);
    this.contextValue = otherWorkspace ? 'leak:other' : 'leak:this';
    this.tooltip = leakTooltip(leak);
  }
}

/** A stray cluster identity (AWS bucket role); its context menu has Delete Leaked Identity. */
export class LeakedIdentityNode extends vscode.TreeItem {
  readonly kind = 'leak-identity';

  constructor(readonly identity: LeakedIdentity) {
    super(`${identity.cloud} ${identity.name}`, vscode.TreeItemCollapsibleState.None);
    this.id = `leak-identity:${identity.cloud}:${identity.account ?? ''}:${identity.name}`;
    this.iconPath = new vscode.ThemeIcon('key', WARN);
    this.description = `${identity.kind} · cluster ${identity.cluster}`;
    this.contextValue = 'leak:identity';
    this.tooltip = identityTooltip(identity);
  }
}

/** A cloud, account or region whose listing failed: its strays are unknown, which is not the same as none. */
export class LeakSweepErrorNode extends vscode.TreeItem {
  readonly kind = 'leak-error';

  constructor(readonly cloud: string, readonly message: string, part: string = cloud) {
    super(`${part}: unknown`, vscode.TreeItemCollapsibleState.None);
    this.id = `leak-error:${part}`;
    this.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    this.description = message;
    this.contextValue = 'leak-error';
    this.tooltip = `Listing ${part} failed, so its leaked instances are unknown (not none): ${message}`;
  }
}
