/**
 * Keeps the trace text and the shared selection in step: moving the cursor onto an event selects
 * it (the graph follows); an event chosen by a command (Show in Graph, Show Events) moves the cursor
 * of every visible editor of its file to it, without taking keyboard focus. A node selected in the
 * graph is followed by the graph view itself (its "follow in editor" toggle). The selection events
 * of otrace's own cursor moves are not read back (record-highlight.ts's own moves), and repeated
 * selections are dropped by the service, so no echo.
 */
import * as vscode from 'vscode';
import type { SessionSummary } from '../../engine/summary';
import { isOwnMove, moveCursor, recordHighlight, revealLine } from './record-highlight';
import type { SelectionService } from './selection';
import { eventAtPosition } from './source-command';
import { toRange, type OpenTraces } from '../open-traces';
import { showStringInVisibleEditors } from './event-content';

export class EditorSync implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly sessions: OpenTraces,
    private readonly selection: SelectionService,
  ) {
    this.disposables.push(
      // A cursor the user (keys, mouse) or a command moved; not the cursor an editor opens with, which
      // would move the graph's first view. Our own reveal comes back here too; it names the selected
      // event, so the service drops it.
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.kind === undefined || !e.selections[0]) return;
        // the position this event reports: the editor's own may already be a later move of ours
        const at = e.selections[0].active;
        if (isOwnMove(e.textEditor, at, e.kind)) return; // our move's echo (follow, Show in Trace File, Open Source Prompt): the graph keeps its event
        void this.fromCursor(e.textEditor, at);
      }),
      // a node selected in the graph: the graph view follows in the editor when its "follow in editor" is on
      selection.onDidChange((s) => {
        if (s.source === 'command') void this.reveal(s.trace, s.index);
      }),
    );
  }

  private async fromCursor(editor: vscode.TextEditor, cursor: vscode.Position): Promise<void> {
    const found = this.sessions.containing(editor.document.uri);
    if (!found) return;
    // records holding several events (one model response, a minified line): the cursor inside the
    // selected event's record keeps it selected
    const current = this.selection.selection;
    const keep = current?.trace === found.summary.key ? current.index : undefined;
    const at = await eventAtPosition(this.sessions, editor.document, cursor, keep);
    // an event chosen while the engine looked (a step in the graph): the newer choice stands
    if (this.selection.selection !== current) return;
    if (at) this.selection.select(at.summary.key, at.index, 'editor');
  }

  /** Moves the cursor of visible editors of the event's file to the event; never focuses them. */
  private async reveal(trace: string, index: number): Promise<void> {
    const summary = this.sessions.peek(vscode.Uri.parse(trace));
    if (summary) await showInVisibleEditors(this.sessions, summary, index, false);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * Shows an event in the text editors that already show its file, without focusing or opening one
 * (keys pressed in the graph must never reach a document): the cursor at the record's start, never
 * the record selected (src/host/editor/record-highlight.ts). An event inside a long JSON string is
 * shown only in an editor of that string's text (never on the collapsed line of the file).
 * @param highlight true: the record's background shown and its start centred (the graph's "follow
 *   in editor"); false: the cursor alone, the start centred only when out of view
 * @param wanted asked after each engine answer: false when a newer step superseded this one (the
 *   graph's follow), and then nothing moves: a late answer must not move the cursor back to an
 *   earlier event (its selection event would select that event in the graph again)
 * @returns false when no visible editor shows the event's file (nothing was shown), else true
 */
export async function showInVisibleEditors(sessions: OpenTraces, summary: SessionSummary, index: number, highlight: boolean, wanted: () => boolean = () => true): Promise<boolean> {
  const place = await sessions.engine.eventPlace(summary.key, summary.stamp, index);
  if (!place || !wanted()) return true; // an event of no file: nothing to show anywhere
  const inString = await showStringInVisibleEditors(sessions, summary, index, highlight, wanted);
  if (inString !== undefined) return inString;
  if (!wanted()) return true;
  const file = sessions.fileOf(summary, place.file).toString();
  const range = toRange(place.range);
  if (!vscode.window.visibleTextEditors.some((e) => e.document.uri.toString() === file)) {
    if (highlight) recordHighlight().clear(); // its file is not shown: no other record stays shaded
    return false;
  }
  for (const editor of vscode.window.visibleTextEditors) {
    if (editor.document.uri.toString() !== file) continue;
    if (highlight) {
      recordHighlight().show(editor, range);
      continue;
    }
    moveCursor(editor, range.start);
    revealLine(editor, range.start.line, false);
  }
  return true;
}
