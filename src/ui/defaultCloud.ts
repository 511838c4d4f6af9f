import * as vscode from 'vscode';
import { checkDefaultCloud } from '../core/clouds/defaultCloud';

/**
 * skydeck.defaultCloud, checked: the cloud of a new cluster whose task names none (package.json
 * says the order). Read at each launch, so a changed setting applies at once.
 */
export function defaultCloud(): string | undefined {
  return checkDefaultCloud(vscode.workspace.getConfiguration('skydeck').get<unknown>('defaultCloud'), 'the setting skydeck.defaultCloud');
}
