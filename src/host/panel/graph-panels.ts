/**
 * Opens graph views: "Open Trace Graph to the Side" (one panel per trace, reused, like Markdown's
 * preview) and the "Orchestration Trace Graph" custom readonly editor ("Reopen Editor With…").
 */
import * as vscode from 'vscode';
import type { SelectionService } from '../editor/selection';
import type { OpenTraces } from '../open-traces';
import type { GraphCommand, WebviewMessage } from '../../shared/protocol';
import { markStart } from '../start-report';
import { graphWebviewOptions } from './graph-html';
import { GraphView } from './graph-view';
import { graphPanelTitle } from './panel-title';
import type { StartPanel } from './start-panel';

/** Palette commands routed to the active graph view (titles in package.json). */
export const GRAPH_COMMANDS: Record<string, GraphCommand> = {
  'otrace.graph.nextEvent': 'next',
  'otrace.graph.previousEvent': 'previous',
  'otrace.graph.nextEventOfAgent': 'nextOfAgent',
  'otrace.graph.previousEventOfAgent': 'previousOfAgent',
  'otrace.graph.nextStop': 'nextStop',
  'otrace.graph.previousStop': 'previousStop',
  'otrace.graph.nextFinding': 'nextFinding',
  'otrace.graph.previousFinding': 'previousFinding',
  'otrace.graph.firstEvent': 'first',
  'otrace.graph.lastEvent': 'last',
  'otrace.graph.playPause': 'playPause',
  'otrace.graph.fit': 'fit',
  'otrace.graph.zoomToSelection': 'zoomToSelection',
  'otrace.graph.toggleAxis': 'toggleAxis',
  'otrace.graph.exportPng': 'exportPng',
  'otrace.graph.exportSvg': 'exportSvg',
};

export const GRAPH_VIEW_TYPE = 'otrace.traceGraph';
export const SIDE_PANEL_TYPE = 'otrace.traceGraphSide';

/**
 * The side graph panel, like Markdown's preview: one panel that follows the active trace editor
 * (files of the shown trace, such as its sub-agent files, do not retarget it), which the user can
 * lock to its trace; locked panels stay with theirs. Also the custom readonly editor.
 */
export class GraphPanels implements vscode.Disposable, vscode.CustomReadonlyEditorProvider {
  /** Locked side panels by trace URI. */
  private readonly side = new Map<string, { panel: vscode.WebviewPanel; view: GraphView }>();
  /** The side panel that follows the active trace, if open. */
  private following: { panel: vscode.WebviewPanel; view: GraphView } | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly sessions: OpenTraces,
    private readonly selection: SelectionService,
  ) {
    this.disposables.push(vscode.window.onDidChangeActiveTextEditor((editor) => void this.followEditor(editor)));
  }

  /**
   * Opens (or reveals) the graph of `uri` beside the active editor: the following panel shows it,
   * unless a locked panel has it. `made`: a panel opened for it already (npm start's, see
   * start-panel.ts), used when no panel shows the trace. Returns the panel.
   */
  openToSide(uri: vscode.Uri, made?: StartPanel): vscode.WebviewPanel {
    if (made && !this.following && !this.side.has(uri.toString())) return this.adopt(made.panel, uri, made.messages);
    made?.panel.dispose();
    const locked = this.side.get(uri.toString());
    if (locked) {
      locked.panel.reveal(locked.panel.viewColumn ?? vscode.ViewColumn.Beside, true);
      return locked.panel;
    }
    if (this.following) {
      this.following.view.show(uri);
      this.following.panel.reveal(this.following.panel.viewColumn ?? vscode.ViewColumn.Beside, true);
      return this.following.panel;
    }
    const panel = vscode.window.createWebviewPanel(
      SIDE_PANEL_TYPE,
      graphPanelTitle(uri.fsPath),
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      graphWebviewOptions(this.extensionUri),
    );
    return this.adopt(panel, uri);
  }

  /**
   * Makes `panel` the following side panel showing `uri` (a new one, one restored after a reload,
   * or npm start's with the `messages` its page sent before).
   */
  private adopt(panel: vscode.WebviewPanel, uri: vscode.Uri, messages: WebviewMessage[] = []): vscode.WebviewPanel {
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.png');
    const entry = { panel, view: undefined as unknown as GraphView };
    entry.view = new GraphView(panel, uri, this.extensionUri, this.sessions, this.selection, () => this.toggleLock(entry), messages);
    this.following = entry;
    this.track(panel, entry.view);
    panel.onDidDispose(() => {
      if (this.following === entry) this.following = undefined;
      for (const [k, v] of this.side) if (v === entry) this.side.delete(k);
    });
    return panel;
  }

  /** Restores a side panel after a window reload (WebviewPanelSerializer). */
  async restore(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    markStart('graph panel restored');
    const uri = typeof (state as { uri?: unknown })?.uri === 'string' ? vscode.Uri.parse((state as { uri: string }).uri) : undefined;
    if (!uri) {
      panel.dispose();
      return;
    }
    if (this.following) this.following.panel.dispose();
    this.adopt(panel, uri);
  }

  /** Locks the following panel to its trace, or unlocks a locked one (it follows again when no other panel does). */
  private toggleLock(entry: { panel: vscode.WebviewPanel; view: GraphView }): void {
    const key = entry.view.traceUri.toString();
    if (this.following === entry) {
      const other = this.side.get(key);
      if (other && other !== entry) other.panel.dispose();
      this.following = undefined;
      this.side.set(key, entry);
      entry.view.setLocked(true);
      return;
    }
    if (this.following) {
      void vscode.window.showInformationMessage('otrace: another graph panel already follows the active trace; close it to let this one follow.');
      entry.view.setLocked(true);
      return;
    }
    this.side.delete(key);
    this.following = entry;
    entry.view.setLocked(false);
  }

  /** The following panel shows the trace of the newly active editor, unless that file belongs to the shown trace or a locked panel shows it. */
  private async followEditor(editor: vscode.TextEditor | undefined): Promise<void> {
    const f = this.following;
    if (!f || !editor) return;
    const uri = editor.document.uri;
    if (uri.toString() === f.view.traceUri.toString() || this.side.has(uri.toString())) return;
    if (f.view.owns(uri) || !(await this.sessions.isTrace(editor.document))) return;
    if (this.following === f && vscode.window.activeTextEditor === editor) f.view.show(uri);
  }

  /** The graph view that follows the active trace, if open (for tests and commands). */
  get followingView(): GraphView | undefined {
    return this.following?.view;
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

  /** The side-panel view of a trace, if open (locked, or the following one showing it). */
  viewFor(uri: vscode.Uri): GraphView | undefined {
    const f = this.following;
    return this.side.get(uri.toString())?.view ?? (f && f.view.traceUri.toString() === uri.toString() ? f.view : undefined);
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
    this.following?.panel.dispose();
    while (this.disposables.length) this.disposables.pop()?.dispose();
  }
}
