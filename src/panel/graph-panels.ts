/**
 * Opens graph views: "Open Trace Graph to the Side" (one panel per trace, reused, like Markdown's
 * preview) and the "Orchestration Trace Graph" custom readonly editor ("Reopen Editor With…").
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SelectionService } from '../editor/selection';
import type { TraceSessions } from '../editor/trace-sessions';
import type { GraphCommand } from '../protocol';
import { GraphView, graphWebviewOptions } from './graph-view';

/** Palette commands routed to the active graph view (titles in package.json). */
export const GRAPH_COMMANDS: Record<string, GraphCommand> = {
  'otrace.graph.nextEvent': 'next',
  'otrace.graph.previousEvent': 'previous',
  'otrace.graph.nextEventOfAgent': 'nextOfAgent',
  'otrace.graph.previousEventOfAgent': 'previousOfAgent',
  'otrace.graph.nextStop': 'nextStop',
  'otrace.graph.nextFinding': 'nextFinding',
  'otrace.graph.previousFinding': 'previousFinding',
  'otrace.graph.firstEvent': 'first',
  'otrace.graph.lastEvent': 'last',
  'otrace.graph.playPause': 'playPause',
  'otrace.graph.fit': 'fit',
  'otrace.graph.zoomToSelection': 'zoomToSelection',
  'otrace.graph.toggleAxis': 'toggleAxis',
};

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
    this.track(panel, view);
    panel.onDidDispose(() => this.side.delete(key));
    return panel;
  }

  /** Every graph view, side panels and custom editors, for routing palette commands. */
  private readonly views = new Set<GraphView>();
  /** The graph view last active (palette commands go there). */
  private lastActive: GraphView | undefined;

  private track(panel: vscode.WebviewPanel, view: GraphView): void {
    this.views.add(view);
    if (panel.active) this.lastActive = view;
    panel.onDidChangeViewState(() => {
      if (panel.active) this.lastActive = view;
    });
    panel.onDidDispose(() => {
      this.views.delete(view);
      if (this.lastActive === view) this.lastActive = undefined;
    });
  }

  /** Runs a graph command (otrace: Next Event, …) in the active graph view, else the last active one, else the only one. */
  command(command: GraphCommand): void {
    const view = [...this.views].find((v) => v.active) ?? this.lastActive ?? (this.views.size === 1 ? [...this.views][0] : undefined);
    if (!view) {
      void vscode.window.showInformationMessage('otrace: open a trace graph first (otrace: Open Trace Graph to the Side).');
      return;
    }
    view.command(command);
  }

  /** The palette commands of the graph, registered (command id -> graph command). */
  registerCommands(): vscode.Disposable[] {
    return Object.entries(GRAPH_COMMANDS).map(([id, command]) => vscode.commands.registerCommand(id, () => this.command(command)));
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
    this.track(panel, view);
    panel.onDidDispose(() => view.dispose());
  }

  dispose(): void {
    for (const { panel } of this.side.values()) panel.dispose();
  }
}
