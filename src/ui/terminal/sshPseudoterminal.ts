import { StringDecoder } from 'node:string_decoder';
import * as vscode from 'vscode';
import type { InteractiveShell, ShellOptions } from '../../core/transport';

/**
 * A VS Code terminal backed by a pty shell on the cluster's head, over Skydeck's own pooled,
 * host-key-verified SSH connection (no system ssh needed). Keys typed before the shell is up
 * are kept and sent once it is.
 */
export class SshPseudoterminal implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number | void>();
  readonly onDidWrite = this.writeEmitter.event;
  readonly onDidClose = this.closeEmitter.event;
  private shell: InteractiveShell | undefined;
  private pendingInput = '';
  private size = { cols: 80, rows: 24 };
  private closedByUser = false;

  constructor(
    private readonly target: string,
    private readonly open_: (opts: ShellOptions) => Promise<InteractiveShell>,
    private readonly cwd: string | undefined,
  ) {}

  open(dims: vscode.TerminalDimensions | undefined): void {
    if (dims) this.size = { cols: dims.columns, rows: dims.rows };
    this.writeEmitter.fire(`Connecting to ${this.target}…\r\n`);
    this.open_({ ...this.size, cwd: this.cwd }).then(
      (shell) => this.attach(shell),
      (e: Error) => {
        this.writeEmitter.fire(`\r\n\x1b[31mCould not open a shell on ${this.target}: ${e.message}\x1b[0m\r\n`);
        this.closeEmitter.fire(1);
      },
    );
  }

  handleInput(data: string): void {
    if (this.shell) this.shell.write(data);
    else this.pendingInput += data;
  }

  setDimensions(dims: vscode.TerminalDimensions): void {
    this.size = { cols: dims.columns, rows: dims.rows };
    this.shell?.resize(dims.columns, dims.rows);
  }

  close(): void {
    this.closedByUser = true;
    this.shell?.close();
  }

  private attach(shell: InteractiveShell): void {
    if (this.closedByUser) return shell.close();
    this.shell = shell;
    // A UTF-8 character may be split across two SSH packets.
    const decoder = new StringDecoder('utf8');
    shell.onData((b) => this.writeEmitter.fire(decoder.write(b)));
    shell.onClose((code) => {
      if (!this.closedByUser) {
        const why = code === null ? 'the connection was lost' : `the shell exited with code ${code}`;
        this.writeEmitter.fire(`\r\n[${why}]\r\n`);
      }
      this.closeEmitter.fire(code ?? undefined);
    });
    shell.resize(this.size.cols, this.size.rows);
    if (this.pendingInput) shell.write(this.pendingInput);
    this.pendingInput = '';
  }
}
