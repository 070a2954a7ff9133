/**
 * What every otrace webview page puts in its head to stay safe with untrusted trace content: a
 * fresh nonce per page and a Content-Security-Policy that loads nothing remote, styles and fonts
 * only from the extension, and scripts only by the nonce (VS Code's webview guide, "Content
 * security policy"). Used by the graph page and the compare page.
 */
import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';

/** A new nonce for one page (18 random bytes, base64). */
export function pageNonce(): string {
  return randomBytes(18).toString('base64');
}

/**
 * The page's Content-Security-Policy, for a `<meta http-equiv>` tag.
 * @param inlineStyles allow inline styles: the graph's libraries (Cytoscape, the vscode-elements
 *   components) set styles from script; a page that needs none leaves it off
 */
export function pageCsp(webview: vscode.Webview, nonce: string, inlineStyles = false): string {
  return [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
    `style-src ${webview.cspSource}${inlineStyles ? " 'unsafe-inline'" : ''}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}
