import type * as Crypto from 'node:crypto';

export interface PanelHtmlInput {
  /** webview.cspSource */
  cspSource: string;
  /** webview.asWebviewUri(dist/webview/logs.js) as a string */
  scriptUri: string;
  styleUri: string;
  title: string;
  nonce?: string;
}

export function makeNonce(): string {
  // Required here, not imported: node:crypto takes ~20 ms to load cold, a cost for the first
  // log panel to pay rather than every activation.
  const { randomBytes } = require('node:crypto') as typeof Crypto;
  return randomBytes(18).toString('base64');
}

/** Enough for text and double-quoted attributes; the CSP's single quotes stay readable. */
const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * The page shell. The CSP allows only our nonce'd script, our stylesheet plus nonce'd style
 * elements (xterm.js creates <style> elements; the page stamps them with the nonce) and fonts
 * from the extension. Kept free of vscode so the headless page tests serve the very same HTML.
 */
export function panelHtml(input: PanelHtmlInput): string {
  const nonce = input.nonce ?? makeNonce();
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${input.cspSource} 'nonce-${nonce}'`,
    `font-src ${input.cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(input.styleUri)}" nonce="${nonce}">
<title>${escapeHtml(input.title)}</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${escapeHtml(input.scriptUri)}"></script>
</body>
</html>
`;
}
