/**
 * "Show Whole Content": an event's whole content (importers keep large values whole; hovers and
 * the graph's details show a preview) in a read-only virtual document, `otrace-content:`, that
 * never asks to be saved and never touches the trace file. The same scheme shows the text of a long
 * JSON string an event starts in (a MAST log, a one-line export: the editor shows that line
 * collapsed), with the cursor on the event's line of it ({@link showEventString}), and the JSON of
 * a long line formatted (a one-line OTLP export: a span at column 30,000 of a line the editor
 * stops drawing after 10,000 characters), with the event's object shaded.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OpenTraces } from '../open-traces';
import { logDebug } from '../log';
import { labelText } from '../../shared/untrusted-text';
import { moveCursor, recordHighlight } from './record-highlight';
import type { SessionSummary } from '../../engine/summary';

export const CONTENT_SCHEME = 'otrace-content';

/** The URI of an event's content: a readable name, the session key and event index in the query. */
export function eventContentUri(trace: string, index: number, eventId: string): vscode.Uri {
  const name = `${path.basename(vscode.Uri.parse(trace).path)} · ${eventId.replace(/[\\/?#]/g, '_').slice(0, 80)}.txt`;
  return vscode.Uri.from({ scheme: CONTENT_SCHEME, path: `/${name}`, query: JSON.stringify({ trace, index }) });
}

/**
 * Where a long JSON string is: the session's file (`''`: the trace), its line and its opening quote
 * (0-based); `view: 'json'`: a long line's JSON formatted from character `open` (0: the whole line).
 */
export interface StringRef {
  file: string;
  line: number;
  open: number;
  view?: 'json';
}

/** The URI of a long JSON string's text (one document per string, however many events start in it), or of a long line's JSON formatted (one per line). */
export function stringContentUri(trace: string, ref: StringRef): vscode.Uri {
  const base = path.basename(ref.file || vscode.Uri.parse(trace).path);
  const name = ref.view === 'json' ? `${base} · line ${ref.line + 1}${ref.open ? ` from column ${ref.open + 1}` : ''} formatted.json` : `${base} · string at line ${ref.line + 1}.txt`;
  const query = { trace, file: ref.file, line: ref.line, open: ref.open, ...(ref.view ? { view: ref.view } : {}) };
  return vscode.Uri.from({ scheme: CONTENT_SCHEME, path: `/${name.replace(/[\\/?#]/g, '_')}`, query: JSON.stringify(query) });
}

/** Where an event is in the text of the long JSON string it starts in (engine/long-strings.ts): that text's document at the event's line, as the jump opens it. */
export function stringLocation(trace: string, spot: StringRef & { at: { line: number; character: number } }): vscode.Location {
  return new vscode.Location(stringContentUri(trace, spot), new vscode.Position(spot.at.line, spot.at.character));
}

/**
 * Shows the long JSON string event `index` starts in, at the event's line of its text (never the
 * collapsed line of the file): in the editor that already shows that string, else opened with
 * `options`. An event past the start of a long line of JSON (a span of a one-line export) is
 * shown in the line's JSON formatted, its object shaded, and the status bar says where in the
 * file it is.
 * @returns the editor, or undefined when the event is on no long line (the caller shows its record).
 */
export async function showEventString(sessions: OpenTraces, summary: SessionSummary, index: number, options: vscode.TextDocumentShowOptions = {}): Promise<vscode.TextEditor | undefined> {
  const found = await sessions.engine.eventString(summary.key, summary.stamp, index);
  if (!found) return undefined;
  const uri = stringContentUri(summary.key, found);
  const at = new vscode.Position(found.at.line, found.at.character);
  const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
  const editor = await vscode.window.showTextDocument(shown?.document ?? (await vscode.workspace.openTextDocument(uri)), { ...options, viewColumn: shown?.viewColumn ?? options.viewColumn, selection: new vscode.Range(at, at) });
  if (found.view === 'json') {
    recordHighlight().show(editor, new vscode.Range(at, found.end ? new vscode.Position(found.end.line, found.end.character) : at));
    const name = path.basename(found.file || summary.path);
    vscode.window.setStatusBarMessage(labelText`otrace: line ${found.line + 1}, column ${found.character + 1} of ${name}, shown formatted (the editor draws a line only up to column ${DRAWN_COLUMNS})`, 15_000);
    return editor;
  }
  editor.selection = new vscode.Selection(at, at);
  editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  return editor;
}

/** How far VS Code draws a line by default (`editor.stopRenderingLineAfter`): the engine's LONG_LINE_CHARS. */
const DRAWN_COLUMNS = '10,000';

/**
 * Moves the cursor of the editors that already show the long string event `index` starts in to
 * the event's line, without focusing them; in a long line's formatted JSON, the event's object is
 * shaded (and no other record). @param highlight true: the shading of other records is taken off
 * too when nothing is shaded here (the graph's "follow in editor"). @returns undefined when the
 * event is not in a long string or line, else whether an editor showed it. @param wanted false
 * when the engine answers: a newer step superseded this one, nothing moves (returns true).
 */
export async function showStringInVisibleEditors(sessions: OpenTraces, summary: SessionSummary, index: number, highlight = false, wanted: () => boolean = () => true): Promise<boolean | undefined> {
  const found = await sessions.engine.eventString(summary.key, summary.stamp, index);
  if (!found) return undefined;
  if (!wanted()) return true;
  const uri = stringContentUri(summary.key, found).toString();
  const at = new vscode.Position(found.at.line, found.at.character);
  const editors = vscode.window.visibleTextEditors.filter((e) => e.document.uri.toString() === uri);
  for (const editor of editors) {
    if (found.view === 'json') {
      // the event's object shaded, as the jump shaded the first one (never an earlier event's)
      recordHighlight().show(editor, new vscode.Range(at, found.end ? new vscode.Position(found.end.line, found.end.character) : at), false);
      continue;
    }
    moveCursor(editor, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  }
  if (highlight && !(found.view === 'json' && editors.length)) recordHighlight().clear();
  return editors.length > 0;
}

/**
 * Registers the content provider and the command `otrace.showEventContent` ({trace, index}; with
 * none, the event at the cursor). `preserveFocus` keeps the keyboard where it is (the graph).
 */
export function registerEventContent(sessions: OpenTraces, cursorRef: () => Promise<{ trace: string; index: number } | undefined>): vscode.Disposable[] {
  const provider: vscode.TextDocumentContentProvider = {
    async provideTextDocumentContent(uri) {
      let ref: { trace?: unknown; index?: unknown; file?: unknown; line?: unknown; open?: unknown; view?: unknown };
      try {
        ref = JSON.parse(uri.query) as typeof ref;
      } catch (err) {
        logDebug(`an event content link names no event: ${uri.toString()}`, err);
        return '';
      }
      if (typeof ref.trace === 'string' && typeof ref.file === 'string' && typeof ref.line === 'number' && typeof ref.open === 'number') {
        // a long JSON string of the trace, or a long line's JSON formatted (stringContentUri)
        const summary = sessions.peek(vscode.Uri.parse(ref.trace));
        const view = ref.view === 'json' ? 'json' : undefined;
        const found = summary && (await sessions.engine.longStringAt(summary.key, summary.stamp, ref.file, { line: ref.line, character: ref.open }, view));
        return found?.text ?? (view ? '(this line is no longer in the trace file as JSON)' : '(this string is no longer in the trace file)');
      }
      if (typeof ref.trace !== 'string' || typeof ref.index !== 'number') return '';
      const summary = sessions.peek(vscode.Uri.parse(ref.trace));
      const text = summary && (await sessions.engine.eventContent(summary.key, summary.stamp, ref.index));
      return text ?? '(this event has no content)';
    },
  };
  return [
    vscode.workspace.registerTextDocumentContentProvider(CONTENT_SCHEME, provider),
    vscode.commands.registerCommand('otrace.showEventContent', async (ref?: { trace: string; index: number; preserveFocus?: boolean; viewColumn?: vscode.ViewColumn }) => {
      const at = ref && typeof ref.trace === 'string' && typeof ref.index === 'number' ? ref : await cursorRef();
      if (!at) return;
      const summary = sessions.peek(vscode.Uri.parse(at.trace));
      const place = summary && (await sessions.engine.eventPlace(summary.key, summary.stamp, at.index));
      if (!place) return;
      const doc = await vscode.workspace.openTextDocument(eventContentUri(at.trace, at.index, place.id));
      await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: ref?.preserveFocus === true, viewColumn: ref?.viewColumn });
    }),
  ];
}
