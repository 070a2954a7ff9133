/**
 * The compare panel's page: strict CSP (the one script by its nonce, styles and scripts only from
 * the extension's dist/), the compare bundle (webview/compare/, built as dist/compare.js and
 * dist/compare.css), and its static chrome. No trace text: the script sets that with textContent.
 */
import * as vscode from 'vscode';
import { pageCsp, pageNonce } from '../panel/page-security';

/** The HTML of a compare page in `webview`; a new nonce each time. */
export function compareHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = pageNonce();
  const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', file)).toString();
  const csp = pageCsp(webview, nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('compare.css')}">
<title>Compare runs</title>
</head>
<body data-state="loading">
<header id="sides" aria-label="The two runs"></header>
<div id="bar">
<button id="prev-diff" class="tool" title="Previous difference (Shift+N, Shift+F7)">▲ previous difference</button>
<button id="next-diff" class="tool" title="Next difference (N, F7)">▼ next difference</button>
<span id="position" aria-live="polite"></span>
<span id="legend" aria-label="Legend"></span>
</div>
<section id="agents" aria-label="Per agent: A → B"></section>
<main id="lanes" tabindex="0" aria-label="Lanes of A above lanes of B: N and Shift+N step through the differences, arrows move along a lane"></main>
<aside id="details" aria-label="The selected events"></aside>
<script nonce="${nonce}" src="${asset('compare.js')}"></script>
</body>
</html>`;
}
