/**
 * Activation only: creates the trace sessions and the shared selection, and registers the views
 * that read them (graph panels and custom editor, decorations, Problems, hovers, CodeLens, Go to
 * Definition, Outline, status bar) and the commands. Returns the API the integration tests use.
 */
// First: the start report's clock starts when the bundle begins to load (activation includes loading it).
import { markStart } from './start-report';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PromptCodeLens, TraceCodeLens } from './editor/codelens';
import { registerTraceCommands } from './editor/commands';
import { TraceDecorator, type DecorationProbe } from './editor/decorations';
import { TraceDefinition } from './editor/definition';
import { EditorSync } from './editor/editor-sync';
import { TraceHover } from './editor/hover';
import { LargeTraceNotice } from './editor/large-files';
import { setConfirmOpen } from './editor/open-policy';
import { TraceOutline } from './editor/outline';
import { SelectionService } from './editor/selection';
import { goToSourcePrompt, type EventRef } from './editor/source-command';
import { TraceStatusBar } from './editor/status-bar';
import { OpenTraces } from './open-traces';
import { MappingFiles } from './editor/mapping-files';
import { registerOpenUri } from './open-uri';
import { GRAPH_VIEW_TYPE, GraphPanels, SIDE_PANEL_TYPE } from './panel/graph-panels';
import { isShownInGraph, markPeoplesLabels } from './panel/graph-view';
import { groupsUnlocked, unlockGroupLeftByGraph } from './panel/group-lock';
import { keepGraphSizeIn } from './panel/graph-size';
import { openStartPanel, takeStartPanel } from './panel/start-panel';
import { WorkerEngine } from './engine-client';
import { createLog, logError, showLog } from './log';
import type { ToWorker } from '../engine/worker-protocol';
import { disposeRecordHighlight, recordHighlight } from './editor/record-highlight';
import { registerChat, type ChatApi } from './chat/register';
import { HumanLabels } from './editor/human-labels';
import { registerLabelCommand } from './editor/label-command';
import { ComparePanels } from './compare/compare-commands';

const TRACE_LANGUAGES: vscode.DocumentSelector = [{ language: 'json' }, { language: 'jsonl' }, { language: 'jsonc' }];
// The bundle is evaluated; VS Code calls activate once the extension's storage is ready too.
markStart('bundle loaded');
// npm start's graph panel at once: VS Code builds its webview while it gets ready to activate.
openStartPanel(vscode.Uri.file(path.join(__dirname, '..')), SIDE_PANEL_TYPE);

/** What the extension exports: hooks for the integration tests (no user-facing API). */
export interface OtraceApi {
  sessions: OpenTraces;
  /** The mapping files in use (settings and workspace). */
  mappings: MappingFiles;
  selection: SelectionService;
  /** Receives every `setDecorations` call (what was applied, per editor). */
  setDecorationProbe(probe: DecorationProbe | undefined): void;
  /** Replaces the "open a file outside the workspace?" dialog; returns the previous one. */
  setConfirmOpen: typeof setConfirmOpen;
  /** The records shaded in text editors now (the event shown), by document URI. */
  shadedRecords(): Map<string, vscode.Range>;
  /** The `vscode://otrace.otrace/open` handler, as VS Code calls it for a link. */
  openUri(uri: vscode.Uri): Promise<void>;
  /** Receives every message the host sends the engine's worker (undefined: none); a promise it returns holds that message back until it settles. */
  setEngineProbe(probe: ((message: ToWorker) => unknown) | undefined): void;
  /** The engine's worker thread id or process id, or undefined while none runs. */
  engineThreadId(): number | undefined;
  /** How many editor groups left locked by a closed graph panel have been unlocked. */
  groupsUnlocked(): number;
  /** The language model tools and `@otrace`: what the participant answers, without a chat. */
  chat: ChatApi;
  /** People's labels: the sidecars read, the marks shown. */
  labels: HumanLabels;
}

export function activate(context: vscode.ExtensionContext): OtraceApi {
  markStart('activate called');
  keepGraphSizeIn(context.globalState);
  // Errors the user is not shown go to the "otrace" output channel (otrace: Show Log).
  context.subscriptions.push(createLog(), vscode.commands.registerCommand('otrace.showLog', showLog));
  // Parse, import, analysis and graph windows run in the engine, never on this thread: in a process
  // of its own (as language servers run: a 1M-event trace's 0.7-2 GB are not in the extension host,
  // and its running out of memory stops no other extension), or a worker thread when the setting says so.
  // The engine starts with the first trace (or mapping file) it is asked about.
  const ownProcess = vscode.workspace.getConfiguration('otrace').get<boolean>('engine.ownProcess', true);
  const engine = new WorkerEngine(path.join(context.extensionPath, 'dist', 'engine-worker.js'), { mode: ownProcess ? 'process' : 'thread', log: logError });
  const mappings = new MappingFiles(engine);
  const sessions = new OpenTraces(engine, mappings, context.workspaceState);
  sessions.keepWhileShown(isShownInGraph); // a trace's editor closed: its graph keeps its session followed
  const selection = new SelectionService();
  const panels = new GraphPanels(context.extensionUri, sessions, selection);
  // npm start's trace first: VS Code builds the graph's webview (the longest part of the start)
  // while the trace is read and the rest of otrace registers.
  void openStartTrace(panels);
  const decorator = new TraceDecorator(context.extensionUri, sessions);
  const labels = new HumanLabels(sessions);
  const compare = new ComparePanels(context.extensionUri, sessions);
  const updateContext = async (editor: vscode.TextEditor | undefined) => {
    const isTrace = !!editor && (await sessions.isTrace(editor.document));
    if (editor === vscode.window.activeTextEditor) void vscode.commands.executeCommand('setContext', 'otrace.activeEditorIsTrace', isTrace);
  };

  context.subscriptions.push(
    engine, // its process (or worker thread) ends with the extension (the open traces dispose it too)
    { dispose: disposeRecordHighlight },
    mappings,
    mappings.onDidChange(() => void updateContext(vscode.window.activeTextEditor)),
    sessions,
    selection,
    panels,
    unlockGroupLeftByGraph(),
    decorator,
    labels,
    registerLabelCommand(sessions, selection, labels),
    markPeoplesLabels((summary) => labels.graphLabels(summary), labels.onDidChange),
    new EditorSync(sessions, selection),
    new TraceStatusBar(sessions),
    new LargeTraceNotice(GRAPH_VIEW_TYPE),
    vscode.window.registerCustomEditorProvider(GRAPH_VIEW_TYPE, panels, {
      webviewOptions: { retainContextWhenHidden: true },
      supportsMultipleEditorsPerDocument: true,
    }),
    vscode.commands.registerCommand('otrace.openGraphToSide', (uri?: vscode.Uri) => {
      const target = uri instanceof vscode.Uri ? uri : activeTraceUri(sessions);
      if (!target) {
        void vscode.window.showInformationMessage('otrace: open a trace file first (otrace JSON/JSONL, survey JSON, Claude Code, Codex, OTel, Who&When, MAST).');
        return;
      }
      return panels.openToSide(target);
    }),
    ...panels.registerCommands(),
    vscode.window.registerWebviewPanelSerializer(SIDE_PANEL_TYPE, { deserializeWebviewPanel: (panel, state) => panels.restore(panel, state) }),
    vscode.commands.registerCommand('otrace.goToSourcePrompt', (ref?: EventRef) => goToSourcePrompt(sessions, ref)),
    ...registerTraceCommands(sessions, selection, panels, decorator),
    compare,
    ...compare.registerCommands(),
    vscode.window.onDidChangeActiveTextEditor((editor) => void updateContext(editor)),
    vscode.languages.registerDocumentSymbolProvider(TRACE_LANGUAGES, new TraceOutline(sessions), { label: 'otrace' }),
    vscode.languages.registerHoverProvider(TRACE_LANGUAGES, new TraceHover(sessions, labels)),
    vscode.languages.registerDefinitionProvider(TRACE_LANGUAGES, new TraceDefinition(sessions)),
    vscode.languages.registerCodeLensProvider(TRACE_LANGUAGES, new TraceCodeLens(sessions)),
    vscode.languages.registerCodeLensProvider({ scheme: 'file' }, new PromptCodeLens(sessions)),
  );
  const chat = registerChat(context, sessions, selection, panels);
  markStart('providers registered');
  const uriHandler = registerOpenUri(context, panels, engine);
  void updateContext(vscode.window.activeTextEditor);
  return {
    sessions,
    mappings,
    selection,
    setDecorationProbe: (probe) => {
      decorator.probe = probe;
      decorator.refreshAll();
    },
    setConfirmOpen,
    shadedRecords: () => new Map(recordHighlight().shaded),
    openUri: async (uri) => {
      await uriHandler.handleUri(uri);
    },
    setEngineProbe: (probe) => {
      engine.probe = probe;
    },
    engineThreadId: () => engine.threadId,
    groupsUnlocked,
    chat,
    labels,
  };
}

/**
 * `npm start` sets OTRACE_START_TRACE to the demo trace: open it and its graph beside it, so the
 * main job is one command. Users never set it.
 */
async function openStartTrace(panels: GraphPanels): Promise<void> {
  const file = process.env.OTRACE_START_TRACE;
  if (!file) return;
  const uri = vscode.Uri.file(file);
  const shown = vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One, preview: false });
  panels.openToSide(uri, takeStartPanel(uri)); // the panel made while the bundle loaded
  await shown;
}

export function deactivate(): void {}

/**
 * The trace of the active editor: a text editor (a sub-agent file means the session containing
 * it), or any tab with a file (a file too large for a text editor, or one open in the graph editor).
 */
function activeTraceUri(sessions: OpenTraces): vscode.Uri | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    const found = sessions.containing(editor.document.uri);
    return found ? vscode.Uri.parse(found.summary.key) : editor.document.uri;
  }
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom) return input.uri;
  return undefined;
}
