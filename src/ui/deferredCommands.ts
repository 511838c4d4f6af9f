import * as vscode from 'vscode';

/**
 * Stands in for the contributed commands until the core chunk is loaded. The real handlers
 * (registerCommands) import core/ops, ssh2 and the task parser; registering them at activation
 * would parse all of that up front. Each stand-in, on first call, asks for the real commands
 * (`load`), which dispose the stand-ins before registering, then re-dispatches: args pass through
 * unchanged because a command registered in this extension host runs in-process.
 */
export class DeferredCommands implements vscode.Disposable {
  private readonly standIns: vscode.Disposable[];

  constructor(ids: readonly string[], private readonly load: () => void) {
    this.standIns = ids.map((id) =>
      vscode.commands.registerCommand(id, (...args: unknown[]) => {
        this.load();
        return vscode.commands.executeCommand(id, ...args);
      }),
    );
  }

  /** The ids contributed in package.json: every one must answer from the moment we activate. */
  static contributedIds(packageJSON: unknown): string[] {
    const commands = (packageJSON as { contributes?: { commands?: { command: string }[] } }).contributes?.commands ?? [];
    return commands.map((c) => c.command);
  }

  /** Called just before the real commands are registered under the same ids. */
  dispose(): void {
    for (const d of this.standIns.splice(0)) d.dispose();
  }
}
