/**
 * Activation only: creates the trace sessions and the shared selection, and registers the views
 * that read them (graph panels and custom editor, decorations, Problems, hovers, CodeLens, Go to
 * Definition, Outline, status bar) and the commands.
 */
import * as vscode from 'vscode';
import { TraceOutline } from './editor/outline';
import { SelectionService } from './editor/selection';
import { goToSourcePrompt, type EventRef } from './editor/source-command';
import { TraceSessions } from './editor/trace-sessions';
import { GRAPH_VIEW_TYPE, GraphPanels, SIDE_PANEL_TYPE } from './panel/graph-panels';
import './trace/importers';

const TRACE_LANGUAGES: vscode.DocumentSelector = [{ language: 'json' }, { language: 'jsonl' }, { language: 'jsonc' }];

export function activate(context: vscode.ExtensionContext): void {
  const sessions = new TraceSessions();
  const selection = new SelectionService();
  const panels = new GraphPanels(context.extensionUri, sessions, selection);
  const updateContext = (editor: vscode.TextEditor | undefined) =>
    void vscode.commands.executeCommand('setContext', 'otrace.activeEditorIsTrace', !!editor && sessions.isTrace(editor.document));

  context.subscriptions.push(
    sessions,
    selection,
    panels,
    vscode.window.registerCustomEditorProvider(GRAPH_VIEW_TYPE, panels, {
      webviewOptions: { retainContextWhenHidden: true },
      supportsMultipleEditorsPerDocument: true,
    }),
    vscode.commands.registerCommand('otrace.openGraphToSide', (uri?: vscode.Uri) => {
      const target = uri instanceof vscode.Uri ? uri : activeTraceUri();
      if (!target) {
        void vscode.window.showInformationMessage('otrace: open a trace file first (otrace JSON/JSONL, survey JSON, Claude Code, Codex, OTel, Who&When, MAST).');
        return;
      }
      return panels.openToSide(target);
    }),
    ...panels.registerCommands(),
    vscode.window.registerWebviewPanelSerializer(SIDE_PANEL_TYPE, { deserializeWebviewPanel: (panel, state) => panels.restore(panel, state) }),
    vscode.commands.registerCommand('otrace.goToSourcePrompt', (ref?: EventRef) => goToSourcePrompt(sessions, ref)),
    vscode.window.onDidChangeActiveTextEditor(updateContext),
    vscode.languages.registerDocumentSymbolProvider(TRACE_LANGUAGES, new TraceOutline(sessions), { label: 'otrace' }),
  );
  updateContext(vscode.window.activeTextEditor);
  void openStartTrace(panels);
}

/**
 * `npm start` sets OTRACE_START_TRACE to the demo trace: open it and its graph beside it, so the
 * main job is one command. Users never set it.
 */
async function openStartTrace(panels: GraphPanels): Promise<void> {
  const file = process.env.OTRACE_START_TRACE;
  if (!file) return;
  const uri = vscode.Uri.file(file);
  await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One, preview: false });
  panels.openToSide(uri);
}

export function deactivate(): void {}

/**
 * The file of the active editor: a text editor, or any tab with a file (a file too large for a
 * text editor, or one open in the graph editor).
 */
function activeTraceUri(): vscode.Uri | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor) return editor.document.uri;
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom) return input.uri;
  return undefined;
}
