/**
 * "Show Whole Content": an event's whole content (importers keep large values whole; hovers and
 * the graph's details show a preview) in a read-only virtual document, `otrace-content:`, that
 * never asks to be saved and never touches the trace file. The same scheme shows the text of a long
 * JSON string an event starts in (a MAST log, a one-line export: the editor shows that line
 * collapsed), with the cursor on the event's line of it ({@link showEventString}).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OpenTraces } from '../open-traces';
import { logDebug } from '../log';
import type { SessionSummary } from '../../engine/summary';

export const CONTENT_SCHEME = 'otrace-content';

/** The URI of an event's content: a readable name, the session key and event index in the query. */
export function eventContentUri(trace: string, index: number, eventId: string): vscode.Uri {
  const name = `${path.basename(vscode.Uri.parse(trace).path)} · ${eventId.replace(/[\\/?#]/g, '_').slice(0, 80)}.txt`;
  return vscode.Uri.from({ scheme: CONTENT_SCHEME, path: `/${name}`, query: JSON.stringify({ trace, index }) });
}

/** Where a long JSON string is: the session's file (`''`: the trace), its line and its opening quote (0-based). */
export interface StringRef {
  file: string;
  line: number;
  open: number;
}

/** The URI of a long JSON string's text: one document per string, however many events start in it. */
export function stringContentUri(trace: string, ref: StringRef): vscode.Uri {
  const name = `${path.basename(ref.file || vscode.Uri.parse(trace).path)} · string at line ${ref.line + 1}.txt`;
  return vscode.Uri.from({ scheme: CONTENT_SCHEME, path: `/${name}`, query: JSON.stringify({ trace, file: ref.file, line: ref.line, open: ref.open }) });
}

/** Where an event is in the text of the long JSON string it starts in (engine/long-strings.ts): that text's document at the event's line, as the jump opens it. */
export function stringLocation(trace: string, spot: StringRef & { at: { line: number; character: number } }): vscode.Location {
  return new vscode.Location(stringContentUri(trace, spot), new vscode.Position(spot.at.line, spot.at.character));
}

/**
 * Shows the long JSON string event `index` starts in, at the event's line of its text (never the
 * collapsed line of the file): in the editor that already shows that string, else opened with
 * `options`.
 * @returns the editor, or undefined when the event does not start inside a long string (the caller shows its record).
 */
export async function showEventString(sessions: OpenTraces, summary: SessionSummary, index: number, options: vscode.TextDocumentShowOptions = {}): Promise<vscode.TextEditor | undefined> {
  const found = await sessions.engine.eventString(summary.key, summary.stamp, index);
  if (!found) return undefined;
  const uri = stringContentUri(summary.key, found);
  const at = new vscode.Position(found.at.line, found.at.character);
  const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
  const editor = await vscode.window.showTextDocument(shown?.document ?? (await vscode.workspace.openTextDocument(uri)), { ...options, viewColumn: shown?.viewColumn ?? options.viewColumn, selection: new vscode.Range(at, at) });
  editor.selection = new vscode.Selection(at, at);
  editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  return editor;
}

/**
 * Moves the cursor of the editors that already show the long string event `index` starts in to
 * the event's line, without focusing them. @returns undefined when the event is not in a long
 * string, else whether an editor showed it.
 */
export async function showStringInVisibleEditors(sessions: OpenTraces, summary: SessionSummary, index: number): Promise<boolean | undefined> {
  const found = await sessions.engine.eventString(summary.key, summary.stamp, index);
  if (!found) return undefined;
  const uri = stringContentUri(summary.key, found).toString();
  const at = new vscode.Position(found.at.line, found.at.character);
  const editors = vscode.window.visibleTextEditors.filter((e) => e.document.uri.toString() === uri);
  for (const editor of editors) {
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  }
  return editors.length > 0;
}

/**
 * Registers the content provider and the command `otrace.showEventContent` ({trace, index}; with
 * none, the event at the cursor). `preserveFocus` keeps the keyboard where it is (the graph).
 */
export function registerEventContent(sessions: OpenTraces, cursorRef: () => Promise<{ trace: string; index: number } | undefined>): vscode.Disposable[] {
  const provider: vscode.TextDocumentContentProvider = {
    async provideTextDocumentContent(uri) {
      let ref: { trace?: unknown; index?: unknown; file?: unknown; line?: unknown; open?: unknown };
      try {
        ref = JSON.parse(uri.query) as typeof ref;
      } catch (err) {
        logDebug(`an event content link names no event: ${uri.toString()}`, err);
        return '';
      }
      if (typeof ref.trace === 'string' && typeof ref.file === 'string' && typeof ref.line === 'number' && typeof ref.open === 'number') {
        // a long JSON string of the trace (stringContentUri)
        const summary = sessions.peek(vscode.Uri.parse(ref.trace));
        const found = summary && (await sessions.engine.longStringAt(summary.key, summary.stamp, ref.file, { line: ref.line, character: ref.open }));
        return found?.text ?? '(this string is no longer in the trace file)';
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
