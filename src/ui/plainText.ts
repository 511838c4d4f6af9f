// Untrusted text (YAML keys, remote stderr, cloud messages, names from the state) shown in
// places that render links. VS Code turns `[label](command:…)` in a notification into a
// clickable link that runs the command, so the `](` pair is broken apart; the text stays
// readable and copyable. No vscode import: unit-tested directly.

/** For notification messages and modal details. */
export function noLinks(text: string): string {
  return text.replace(/\]\(/g, '] (');
}
