import * as vscode from 'vscode';
import type { MachineSetting } from './trust';

/** A machine-level setting: the user's own value only, never the workspace's (trust.ts). */
export function machineSetting<T>(key: MachineSetting): T | undefined {
  return vscode.workspace.getConfiguration('skydeck').inspect<T>(key)?.globalValue;
}
