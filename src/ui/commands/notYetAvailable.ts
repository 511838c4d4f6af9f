import * as vscode from 'vscode';
import type { Command } from './command';
import { notify } from '../notify';

/**
 * Commands contributed before their feature has landed. They tell the user plainly instead of
 * doing nothing; each is replaced by its own file when the feature arrives.
 */
const PENDING: Record<string, string> = {
};

export function notYetAvailableMessage(title: string): string {
  return `Skydeck: "${title}" is not available in this version yet. Task YAML validation works today (skydeck validate FILE).`;
}

export const pendingCommands: Command[] = Object.entries(PENDING).map(([id, title]) => ({
  id,
  run: () => notify.info(notYetAvailableMessage(title)),
}));
