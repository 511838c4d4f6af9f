import assert from 'node:assert/strict';
import { makeNonce, panelHtml } from '../../../src/ui/logs/panelHtml';

describe('log panel HTML', () => {
  const html = panelHtml({ cspSource: 'https://x.vscode-cdn.net', scriptUri: 'https://x/logs.js', styleUri: 'https://x/logs.css', title: 'c #1 <b>', nonce: 'N0nce' });

  it('has the strict CSP with the nonce', () => {
    const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1];
    assert.equal(csp, "default-src 'none'; script-src 'nonce-N0nce'; style-src https://x.vscode-cdn.net 'nonce-N0nce'; font-src https://x.vscode-cdn.net");
  });

  it('loads only the bundle and its stylesheet, both carrying the nonce', () => {
    assert.match(html, /<script nonce="N0nce" src="https:\/\/x\/logs.js"><\/script>/);
    assert.match(html, /<link rel="stylesheet" href="https:\/\/x\/logs.css" nonce="N0nce">/);
    assert.equal((html.match(/<script/g) ?? []).length, 1);
    assert.doesNotMatch(html, /style="/);
  });

  it('escapes the title', () => {
    assert.match(html, /<title>c #1 &lt;b&gt;<\/title>/);
  });

  it('makes a fresh unguessable nonce each time', () => {
    const a = makeNonce();
    assert.notEqual(a, makeNonce());
    assert.ok(a.length >= 24);
  });
});
