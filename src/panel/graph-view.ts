/**
 * The graph webview of one trace file, used both by "Open Trace Graph to the Side" and by the
 * "Orchestration Trace Graph" custom editor: strict CSP, assets through asWebviewUri, a ready
 * handshake, and jumps from events back to the trace file and to the prompts that produced them.
 */
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { escapeForMessage } from '../editor/markdown';
import type { SelectionService } from '../editor/selection';
import { showEventRecord } from '../editor/source-command';
import type { TraceSessions } from '../editor/trace-sessions';
import type { HostMessage, WebviewMessage } from '../protocol';
import type { TraceSnapshot } from '../session/snapshot';
import { markStart, reportPainted } from '../start-report';
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
  private snapshot: TraceSnapshot | undefined;
  private ready = false;
  /** Messages asked for before the webview had its trace (explain, showLane): sent right after it. */
  private queued: HostMessage[] = [];
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly uri: vscode.Uri,
    private readonly extensionUri: vscode.Uri,
    private readonly sessions: TraceSessions,
    private readonly selection: SelectionService,
  ) {
    markStart('graph panel created');
    panel.webview.options = graphWebviewOptions(extensionUri);
    panel.webview.html = this.html();
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: WebviewMessage) => this.onMessage(m)),
      sessions.onDidChange((snapshot) => {
        if (snapshot.key === uri.toString()) {
          this.snapshot = snapshot;
          this.send();
        }
      }),
      selection.onDidChange((s) => {
        if (s.source !== 'graph' && s.trace === uri.toString()) this.postWhenShown({ type: 'select', index: s.index });
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    void this.reload();
  }

  /** Frames a finding (index into the snapshot's findings) and explains it in the details pane. */
  explain(finding: number): void {
    this.postWhenShown({ type: 'explain', finding });
  }

  /** Frames one agent's lane. */
  showLane(agent: string): void {
    this.postWhenShown({ type: 'showLane', agent });
  }

  /** Posts now when the webview shows the trace, else right after it does. */
  private postWhenShown(message: HostMessage): void {
    if (this.ready && this.snapshot) this.post(message);
    else this.queued.push(message);
  }

  /** The trace this view shows. */
  get traceUri(): vscode.Uri {
    return this.uri;
  }

  private async reload(): Promise<void> {
    try {
      this.snapshot = await this.sessions.forUri(this.uri);
      markStart('trace loaded');
    } catch (err) {
      void vscode.window.showErrorMessage(`otrace: cannot read ${escapeForMessage(this.uri.fsPath)}: ${escapeForMessage((err as Error).message)}`);
      return;
    }
    this.send();
  }

  private send(): void {
    if (!this.ready || !this.snapshot) return;
    const maxEvents = vscode.workspace.getConfiguration('otrace').get<number>('graph.maxEvents', 5000);
    this.post({ type: 'trace', graph: buildGraph(this.snapshot.loaded, path.basename(this.uri.fsPath), maxEvents, this.snapshot.analysis) });
    const s = this.selection.selection;
    if (s && s.trace === this.uri.toString()) this.post({ type: 'select', index: s.index });
    for (const m of this.queued.splice(0)) this.post(m);
    markStart('graph sent');
  }

  private post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  private async onMessage(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        markStart('webview ready');
        this.ready = true;
        this.send();
        return;
      case 'reveal':
        await this.reveal(m.index);
        return;
      case 'openSource':
        await vscode.commands.executeCommand('otrace.goToSourcePrompt', { trace: this.uri.toString(), index: m.index, viewColumn: this.otherColumn() });
        return;
      case 'selected':
        this.selection.select(this.uri.toString(), m.index, 'graph');
        return;
      case 'painted':
        return reportPainted(this.uri.fsPath, m.events);
    }
  }

  /** Opens the trace file (or the sub-agent file the event came from) at the event's record: the user asked to go there. */
  private async reveal(index: number): Promise<void> {
    if (this.snapshot) await showEventRecord(this.snapshot, index, { viewColumn: this.otherColumn() });
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
