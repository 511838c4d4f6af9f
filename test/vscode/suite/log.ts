// Console output from tests inside the extension host. Use log() instead of console.log.
//
// Under code-server (scripts/vscode-test/code-server-launcher.mjs), the extension host's console
// reaches the page through the workbench's log service: mixed with the workbench's own log
// lines and with printf-style arguments left unformatted. And console.log cannot be replaced
// there (VS Code defines it as a getter-only property). So lines meant for the test output are
// formatted here and marked with SKYDECK_TEST_CONSOLE_MARK, which the launcher sets and looks
// for. In desktop VS Code the variable is unset and this is plain console.log.
import { format } from 'node:util';

const mark = process.env.SKYDECK_TEST_CONSOLE_MARK ?? '';

export function log(...args: unknown[]): void {
  console.log(mark + format(...args));
}

export function logError(...args: unknown[]): void {
  console.error(mark + format(...args));
}
