/**
 * Opens graph views: "Open Trace Graph to the Side" (one panel per trace, reused, like Markdown's
 * preview) and the "Orchestration Trace Graph" custom readonly editor ("Reopen Editor With…").
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SelectionService } from '../editor/selection';
import type { TraceSessions } from '../editor/trace-sessions';
import { GraphView, graphWebviewOptions } from './graph-view';

export const GRAPH_VIEW_TYPE = 'otrace.traceGraph';
const SIDE_PANEL_TYPE = 'otrace.traceGraphSide';

/** Side panels by trace URI, so a second "Open to the Side" reveals the existing one. */
export class GraphPanels implements vscode.Disposable, vscode.CustomReadonlyEditorProvider {
  private readonly side = new Map<string, { panel: vscode.WebviewPanel; view: GraphView }>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly sessions: TraceSessions,
    private readonly selection: SelectionService,
  ) {}

  /** Opens (or reveals) the graph of `uri` beside the active editor. Returns the panel. */
  openToSide(uri: vscode.Uri): vscode.WebviewPanel {
    const key = uri.toString();
    const existing = this.side.get(key);
    if (existing) {
      existing.panel.reveal(vscode.ViewColumn.Beside, true);
      return existing.panel;
    }
    const panel = vscode.window.createWebviewPanel(
      SIDE_PANEL_TYPE,
      `Graph: ${path.basename(uri.fsPath)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      graphWebviewOptions(this.extensionUri),
    );
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.png');
    const view = new GraphView(panel, uri, this.extensionUri, this.sessions, this.selection);
    this.side.set(key, { panel, view });
    panel.onDidDispose(() => this.side.delete(key));
    return panel;
  }

  /** The side-panel view of a trace, if open. */
  viewFor(uri: vscode.Uri): GraphView | undefined {
    return this.side.get(uri.toString())?.view;
  }

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    const view = new GraphView(panel, document.uri, this.extensionUri, this.sessions, this.selection);
    panel.onDidDispose(() => view.dispose());
  }

  dispose(): void {
    for (const { panel } of this.side.values()) panel.dispose();
  }
}
