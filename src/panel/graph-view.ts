/**
 * The graph webview of one trace file, used both by "Open Trace Graph to the Side" and by the
 * "Orchestration Trace Graph" custom editor: strict CSP, assets through asWebviewUri, a ready
 * handshake, and jumps from events back to the trace file and to the prompts that produced them.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { toRange, type TraceSessions } from '../editor/trace-sessions';
import { analyzeTrace, type Analysis } from '../analysis';
import type { HostMessage, WebviewMessage } from '../protocol';
import type { LoadedTrace } from '../trace/model';
import { buildGraph } from './graph-model';

/** Webview options for graph panels: scripts on, resources only from dist/ and media/. */
export function graphWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    retainContextWhenHidden: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

/** Shows the trace at `uri` in `panel` and keeps it current while the panel lives. */
export class GraphView implements vscode.Disposable {
  private loaded: LoadedTrace | undefined;
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly uri: vscode.Uri,
    private readonly extensionUri: vscode.Uri,
    private readonly sessions: TraceSessions,
  ) {
    panel.webview.options = graphWebviewOptions(extensionUri);
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: WebviewMessage) => this.onMessage(m)),
      sessions.onDidChange((changed) => {
        if (changed.toString() === uri.toString()) void this.reload();
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    void this.reload();
  }

  /** Selects an event in the graph (e.g. from the cursor in the trace file). */
  select(id: string): void {
    this.post({ type: 'select', id });
  }

  private async reload(): Promise<void> {
    try {
      this.loaded = await this.sessions.forUri(this.uri);
    } catch (err) {
      void vscode.window.showErrorMessage(`otrace: cannot read ${this.uri.fsPath}: ${(err as Error).message}`);
      return;
    }
    this.send();
  }

  private send(): void {
    if (!this.ready || !this.loaded) return;
    const maxEvents = vscode.workspace.getConfiguration('otrace').get<number>('graph.maxEvents', 5000);
    this.post({ type: 'trace', graph: buildGraph(this.loaded, path.basename(this.uri.fsPath), maxEvents, this.analyze(this.loaded)) });
  }

  /** The analysis of the trace; a failure there must not cost the user the graph. */
  private analyze(loaded: LoadedTrace): Analysis | undefined {
    try {
      return analyzeTrace(loaded);
    } catch (err) {
      console.error('otrace: analysis failed', err);
      return undefined;
    }
  }

  private post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  private async onMessage(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.send();
        return;
      case 'reveal':
        return this.reveal(m.id);
      case 'openSource':
        return this.openSource(m.id);
      case 'selected':
        return;
    }
  }

  /** Opens the trace file (or the sub-agent file the event came from) at the event's record. */
  private async reveal(id: string): Promise<void> {
    const origin = this.loaded?.eventOrigins.get(id);
    if (!origin) return;
    const file = origin.file ? vscode.Uri.file(path.resolve(path.dirname(this.uri.fsPath), origin.file)) : this.uri;
    const range = toRange(origin.range);
    await vscode.window.showTextDocument(file, { selection: new vscode.Range(range.start, range.start), viewColumn: this.otherColumn() });
  }

  /** Opens the prompt file named by the event's `source`, relative to the trace file. */
  private async openSource(id: string): Promise<void> {
    const event = this.loaded?.trace.events.find((e) => e.id === id);
    if (!event?.source) return;
    const file = vscode.Uri.file(path.resolve(path.dirname(this.uri.fsPath), event.source.path));
    const at = new vscode.Position(Math.max(0, (event.source.line ?? 1) - 1), Math.max(0, (event.source.column ?? 1) - 1));
    try {
      await vscode.window.showTextDocument(file, { selection: new vscode.Range(at, at), viewColumn: this.otherColumn() });
    } catch {
      void vscode.window.showWarningMessage(`otrace: the source prompt ${event.source.path} of event "${id}" was not found next to the trace.`);
    }
  }

  /** The editor column beside the graph (the graph stays visible). */
  private otherColumn(): vscode.ViewColumn {
    return this.panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
  }

  private html(): string {
    const webview = this.panel.webview;
    const nonce = makeNonce();
    const asset = (file: string) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', file));
    const csp = [
      "default-src 'none'",
      `img-src ${webview.cspSource} data:`,
      `font-src ${webview.cspSource}`,
      // Cytoscape and the vscode-elements components set styles from script; no script is inline.
      `style-src ${webview.cspSource} 'unsafe-inline'`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('webview.css')}">
<title>Orchestration Trace Graph</title>
</head>
<body data-state="loading">
<header>
  <span id="title">Loading trace…</span><span id="summary"></span>
  <vscode-textfield id="search" placeholder="Filter events" aria-label="Filter events"></vscode-textfield>
  <span id="matches" aria-live="polite"></span>
  <vscode-button id="fit" secondary title="Fit the whole trace (F)">Fit</vscode-button>
</header>
<nav id="findings" aria-label="Analysis findings" hidden></nav>
<div id="legend" aria-label="Event types"></div>
<div id="main">
  <div id="canvas"><div id="graph" aria-label="Trace event graph"></div><div id="lanes"></div></div>
  <aside id="details"></aside>
</div>
<script nonce="${nonce}" src="${asset('webview.js')}"></script>
</body>
</html>`;
  }

  dispose(): void {
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}

function makeNonce(): string {
  return randomBytes(18).toString('base64');
}
