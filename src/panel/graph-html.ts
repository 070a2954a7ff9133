/**
 * The graph webview's page: strict CSP (scripts only with the page's nonce, no remote content),
 * the webview bundle inlined (see webview-assets.ts), and the graph's chrome (header, findings,
 * legend, canvas, details, timeline), filled by the bundle.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
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
  const nonce = makeNonce();
  const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', file));
  // Inline, the script and style arrive with the HTML (no resource loads before the first paint).
  const inline = webviewAssets(path.join(extensionUri.fsPath, 'dist'), (file) => asset(file).toString());
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
    // Cytoscape and the vscode-elements components set styles from script; the one script (the bundle, inline) runs by its nonce.
    `style-src ${webview.cspSource} 'unsafe-inline'`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
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
<header>
<span id="title">Loading trace…</span><span id="summary"></span>
<vscode-textfield id="search" placeholder="Filter events" aria-label="Filter events"></vscode-textfield>
<span id="matches" aria-live="polite"></span>
<button id="follow-run" class="tool live" hidden aria-pressed="false" title="The run is still being written. Click to keep its newest events in view as they arrive (the view otherwise stays where you are)">● in progress</button>
<button id="lock" class="tool" hidden title="This panel follows the active trace editor; click to keep it on this trace">Lock</button>
<button id="mode" class="tool" title="x is time (idle gaps shortened); click for event order (T)">x: time</button>
<button id="zoom-sel" class="tool" title="Zoom to the selected event (Z); Esc goes back">Zoom to selection</button>
<button id="fit" class="tool" title="Show the whole trace (F)">Fit</button>
<button id="export-png" class="tool" title="Save this view as a PNG image">PNG</button>
<button id="export-svg" class="tool" title="Save this view as an SVG image">SVG</button>
</header>
<nav id="findings" aria-label="Analysis findings" hidden></nav>
<div id="legend" aria-label="Legend"></div>
<div id="loading" role="status"><div class="bar"></div><span>Reading and analysing the trace… <span id="elapsed"></span></span></div>
<div id="main">
<div id="canvas" tabindex="0" aria-label="Trace graph: arrow keys step through events, F fits">
  <div id="corner"></div>
  <div id="axis" aria-hidden="true"></div>
  <div id="lanes" aria-label="Lanes"></div>
  <div id="stage"><div id="gaps"></div><div id="graph" aria-label="Trace event graph"></div><div id="later" hidden></div><div id="focus" hidden></div><div id="cursor" hidden></div><div id="tooltip" hidden></div></div>
  <div id="overview-label">whole run</div>
  <canvas id="minimap" aria-label="Minimap of the whole trace: click to go there"></canvas>
</div>
<aside id="details"></aside>
</div>
<footer id="timeline" aria-label="Timeline">
<button id="first" class="tool" title="First event (Home)">|◀</button>
<button id="prev" class="tool" title="Previous event (←)">◀</button>
<button id="play" class="tool" title="Play (Space)">Play</button>
<button id="next" class="tool" title="Next event (→)">▶</button>
<button id="last" class="tool" title="Last event (End)">▶|</button>
<span id="counter" aria-live="polite">– / –</span>
<span id="clock"></span>
<select id="speed" title="Events per second while playing" aria-label="Speed"><option value="1">1/s</option><option value="4" selected>4/s</option><option value="16">16/s</option><option value="64">64/s</option></select>
<button id="prev-agent" class="tool" title="Previous event of this agent (Shift+←)">◀ agent</button>
<button id="next-agent" class="tool" title="Next event of this agent (Shift+→)">agent ▶</button>
<button id="next-stop" class="tool" title="Next stop (S)">stop ▶</button>
<button id="next-finding" class="tool" title="Next event with a finding (N)">finding ▶</button>
<label title="Stepping shows the event's line in the trace editor (without leaving the graph)"><input type="checkbox" id="follow"> follow in editor</label>
</footer>
${inline ? `<script nonce="${nonce}">${inline.script}</script>` : `<script nonce="${nonce}" src="${asset('webview.js')}"></script>`}
</body>
</html>`;
}

function makeNonce(): string {
  return randomBytes(18).toString('base64');
}
