import type { ITheme } from '@xterm/xterm';

// VS Code puts its theme colours on the webview's <html> as CSS variables; the terminal's own
// palette is the closest match for job output.
const ANSI = [
  'black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white',
  'brightBlack', 'brightRed', 'brightGreen', 'brightYellow', 'brightBlue', 'brightMagenta', 'brightCyan', 'brightWhite',
] as const;

function cssVar(style: CSSStyleDeclaration, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = style.getPropertyValue(n).trim();
    if (v) return v;
  }
  return undefined;
}

export function vscodeTerminalTheme(doc: Document): ITheme {
  const style = getComputedStyle(doc.documentElement);
  const theme: ITheme = {
    background: cssVar(style, '--vscode-terminal-background', '--vscode-panel-background', '--vscode-editor-background') ?? '#1e1e1e',
    foreground: cssVar(style, '--vscode-terminal-foreground', '--vscode-editor-foreground') ?? '#cccccc',
    cursor: 'transparent',
    selectionBackground: cssVar(style, '--vscode-terminal-selectionBackground', '--vscode-editor-selectionBackground'),
  };
  for (const name of ANSI) {
    const v = cssVar(style, `--vscode-terminal-ansi${name[0].toUpperCase()}${name.slice(1)}`);
    if (v) theme[name] = v;
  }
  return theme;
}

export function editorFont(doc: Document): { fontFamily: string; fontSize: number } {
  const style = getComputedStyle(doc.documentElement);
  const size = Number.parseInt(cssVar(style, '--vscode-editor-font-size') ?? '', 10);
  return {
    fontFamily: cssVar(style, '--vscode-editor-font-family') ?? 'Menlo, Monaco, "DejaVu Sans Mono", "Courier New", monospace',
    fontSize: Number.isFinite(size) && size > 0 ? size : 13,
  };
}
