/**
 * The graph webview's page: strict CSP (scripts only with the page's nonce, no remote content),
 * the webview bundle inlined (see webview-assets.ts), and the graph's chrome (header, findings,
 * legend, canvas, details, timeline), filled by the bundle.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { GRAPH_BODY } from './graph-body';
import { pageCsp, pageNonce } from './page-security';
import { webviewAssets } from './webview-assets';

/** Webview options for graph panels: scripts on, resources only from dist/ and media/. */
export function graphWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    retainContextWhenHidden: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

/** The HTML of a graph page in `webview`, for the extension at `extensionUri`; a new nonce each time. */
export function graphHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = pageNonce();
  const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', file));
  // Inline, the script and style arrive with the HTML (no resource loads before the first paint).
  const inline = webviewAssets(path.join(extensionUri.fsPath, 'dist'), (file) => asset(file).toString());
  // Cytoscape and the vscode-elements components set styles from script; the one script (the bundle, inline) runs by its nonce.
  const csp = pageCsp(webview, nonce, true);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${inline ? `<style nonce="${nonce}">${inline.style}</style>` : `<link rel="stylesheet" href="${asset('webview.css')}">`}
<title>Orchestration Trace Graph</title>
</head>
<body data-state="loading">
${GRAPH_BODY}
${inline ? `<script nonce="${nonce}">${inline.script}</script>` : `<script nonce="${nonce}" src="${asset('webview.js')}"></script>`}
</body>
</html>`;
}

