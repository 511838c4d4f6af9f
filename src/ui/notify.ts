import * as vscode from 'vscode';
import { noLinks } from './plainText';
import { testProbe, type Notice } from './testProbe';

// Every notification of the extension goes through here (a unit test checks that no other file
// calls vscode.window.show*Message): messages often carry text the workspace or a remote host
// chose, and a Markdown link in it would become a clickable command link.

type Show = typeof vscode.window.showErrorMessage;
type AnyShow = (message: string, ...rest: unknown[]) => Thenable<unknown>;

function plainArgs(rest: unknown[]): unknown[] {
  return rest.map((a) => {
    const o = a as vscode.MessageOptions | undefined;
    return o && typeof o === 'object' && typeof o.detail === 'string' ? { ...o, detail: noLinks(o.detail) } : a;
  });
}

// Looked up on each call, not bound once: tests replace the window functions.
const plain = (level: Notice['level'], pick: () => Show): Show =>
  ((message: string, ...rest: unknown[]) => {
    const text = noLinks(message);
    const items = rest.filter((r): r is string => typeof r === 'string');
    const probe = testProbe();
    const notice: Notice = { level, message: text, ...(items.length ? { items } : {}) };
    probe?.notices.push(notice);
    const answer = probe?.answer?.(notice);
    if (answer !== undefined) return Promise.resolve(answer);
    return (pick() as AnyShow)(text, ...plainArgs(rest));
  }) as Show;

export const notify = {
  error: plain('error', () => vscode.window.showErrorMessage),
  warning: plain('warning', () => vscode.window.showWarningMessage),
  info: plain('info', () => vscode.window.showInformationMessage),
};
