/**
 * The head every webview page shares (src/host/panel/page-security.ts): nothing remote, scripts only
 * by the page's nonce, inline styles only where a page asks for them (the graph), and a fresh nonce
 * each time a page is written.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type * as vscode from 'vscode';
import { pageCsp, pageNonce } from '../../../src/host/panel/page-security';

const webview = { cspSource: 'https://file+.vscode-resource.vscode-cdn.net' } as vscode.Webview;

/** The policy's directives by name. */
function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
}

test('the page policy loads nothing by default and runs only the script with the nonce', () => {
  const nonce = pageNonce();
  const d = directives(pageCsp(webview, nonce));
  assert.deepEqual(d.get('default-src'), ["'none'"]);
  assert.deepEqual(d.get('script-src'), [`'nonce-${nonce}'`]);
  assert.deepEqual(d.get('style-src'), [webview.cspSource]);
  assert.deepEqual(d.get('img-src'), [webview.cspSource, 'data:']);
  assert.deepEqual(d.get('font-src'), [webview.cspSource]);
  assert.deepEqual([...d.keys()].sort(), ['default-src', 'font-src', 'img-src', 'script-src', 'style-src']);
});

test('inline styles are allowed only when the page asks, and never inline scripts or eval', () => {
  const nonce = pageNonce();
  const d = directives(pageCsp(webview, nonce, true));
  assert.deepEqual(d.get('style-src'), [webview.cspSource, "'unsafe-inline'"]);
  assert.deepEqual(d.get('script-src'), [`'nonce-${nonce}'`]);
  assert.doesNotMatch(pageCsp(webview, nonce, true), /unsafe-eval|\*/);
});

test('each page gets a new nonce of 18 random bytes', () => {
  const nonces = new Set(Array.from({ length: 50 }, pageNonce));
  assert.equal(nonces.size, 50);
  for (const n of nonces) assert.equal(Buffer.from(n, 'base64').length, 18);
});
