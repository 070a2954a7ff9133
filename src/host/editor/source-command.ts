/**
 * "otrace: Go to Source Prompt" (command, Go to Definition, hover and CodeLens links, the graph's
 * Open Source Prompt button): opens the prompt that produced an event by the rule of
 * src/engine/source-prompt.ts (answered by the engine), through the openable-file policy.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EventPlace, PromptAt } from '../../engine/query-types';
import { messageText } from '../../shared/untrusted-text';
import type { SessionSummary } from '../../engine/summary';
import { judgePath, openTracePath, workspaceRoots } from './open-policy';
import { markOwnMove, recordHighlight } from './record-highlight';
import { toRange, type OpenTraces } from '../open-traces';
import { showEventString } from './event-content';

/** Arguments of the command when it comes from a link or the graph; none means "the event at the cursor". */
export interface EventRef {
  /** Session key (the trace's URI string). */
  trace: string;
  index: number;
  viewColumn?: vscode.ViewColumn;
  /** True when asked from the graph: the prompt is shown and the keyboard stays in the graph. */
  preserveFocus?: boolean;
}

/** An event of a session: the session's summary and the event's index. */
export interface SessionEvent {
  summary: SessionSummary;
  index: number;
}

/**
 * The session and event at a position of a document (the trace itself or one of its sub-agent files).
 * @param keep an event index that stays the answer while `at` is inside its record (the selected event).
 */
export async function eventAtPosition(sessions: OpenTraces, document: vscode.TextDocument, at: vscode.Position, keep?: number): Promise<SessionEvent | undefined> {
  await sessions.forDocument(document);
  const found = sessions.containing(document.uri);
  if (!found) return undefined;
  const index = await sessions.engine.eventAt(found.summary.key, found.summary.stamp, found.file, { line: at.line, character: at.character }, keep);
  return index === undefined ? undefined : { summary: found.summary, index };
}

/** The session and event under the cursor of a text editor. */
export function eventAtCursor(sessions: OpenTraces, editor: vscode.TextEditor | undefined): Promise<SessionEvent | undefined> {
  return editor ? eventAtPosition(sessions, editor.document, editor.selection.active) : Promise.resolve(undefined);
}

/** The event a command means: the one its reference names, else the one at the cursor. */
export async function eventOfRef(sessions: OpenTraces, ref: { trace?: unknown; index?: unknown } | undefined): Promise<SessionEvent | undefined> {
  if (ref && typeof ref.trace === 'string' && typeof ref.index === 'number') {
    const summary = sessions.peek(vscode.Uri.parse(ref.trace));
    return summary && { summary, index: ref.index };
  }
  return eventAtCursor(sessions, vscode.window.activeTextEditor);
}

/** Where a prompt target is, as a location to show; undefined when the policy does not let it open directly. */
export function promptLocation(summary: SessionSummary, at: PromptAt): vscode.Location | undefined {
  const target = at.target;
  if (!target) return undefined;
  if (target.kind === 'event') {
    const place = at.place;
    if (!place) return undefined;
    if (!place.file) return new vscode.Location(vscode.Uri.parse(summary.key), toRange(place.range).start);
    const verdict = judgePath(place.file, summary.path, workspaceRoots(), summary.files);
    return verdict.kind === 'open' ? new vscode.Location(verdict.uri, toRange(place.range).start) : undefined;
  }
  const verdict = judgePath(target.path, summary.path, workspaceRoots());
  if (verdict.kind !== 'open') return undefined;
  const pos = new vscode.Position(Math.max(0, (target.line ?? 1) - 1), Math.max(0, (target.column ?? 1) - 1));
  return new vscode.Location(verdict.uri, pos);
}

/** Runs "Go to Source Prompt" for an event reference or the event at the cursor. */
export async function goToSourcePrompt(sessions: OpenTraces, ref?: EventRef): Promise<void> {
  const at = await eventOfRef(sessions, ref);
  const prompt = at && (await sessions.engine.sourcePrompt(at.summary.key, at.summary.stamp, at.index));
  if (!at || !prompt) {
    void vscode.window.showInformationMessage('otrace: put the cursor on an event of a trace file to go to its source prompt.');
    return;
  }
  const { summary } = at;
  const target = prompt.target;
  if (!target) {
    void vscode.window.showInformationMessage(messageText`otrace: the event at line ${prompt.line} of ${path.basename(summary.path)} names no source prompt, and no user prompt or spawn call comes before it.`);
    return;
  }
  const options: vscode.TextDocumentShowOptions = { viewColumn: ref?.viewColumn, preview: true, preserveFocus: ref?.preserveFocus === true };
  if (target.kind === 'path') {
    await openTracePath(target.path, summary.path, { line: target.line, column: target.column }, options);
    return;
  }
  if (prompt.place) await showPlace(sessions, summary, prompt.place, options);
}

/**
 * Opens the file an event came from at the start of its record (the trace, or a sub-agent file,
 * which goes through the openable-file policy like any path a trace names), centred. An event
 * inside a long JSON string (a MAST log: the editor shows its line collapsed) opens the string's
 * text at the event's line instead.
 */
export async function showEventRecord(sessions: OpenTraces, summary: SessionSummary, index: number, options: vscode.TextDocumentShowOptions = {}): Promise<vscode.TextEditor | undefined> {
  const place = await sessions.engine.eventPlace(summary.key, summary.stamp, index);
  return place && showPlace(sessions, summary, place, options);
}

/** Opens an event's file at its record: the cursor at its start, the record's background shown, the start centred (a long string: its text). */
async function showPlace(sessions: OpenTraces, summary: SessionSummary, place: EventPlace, options: vscode.TextDocumentShowOptions): Promise<vscode.TextEditor | undefined> {
  const inString = await showEventString(sessions, summary, place.index, options);
  if (inString) return inString;
  const range = toRange(place.range);
  const start = range.start;
  // asked from the graph: it keeps its selection (marked before the editor opens: its selection events come meanwhile)
  if (options.preserveFocus && !place.file) markOwnMove(vscode.Uri.parse(summary.key), start);
  const editor = place.file
    ? await openTracePath(place.file, summary.path, { line: start.line + 1, column: start.character + 1 }, options, summary.files)
    : await vscode.window.showTextDocument(vscode.Uri.parse(summary.key), { ...options, selection: new vscode.Range(start, start) });
  if (!editor) return undefined;
  if (options.preserveFocus) markOwnMove(editor.document.uri, range.start); // asked from the graph: it keeps its selection
  recordHighlight().show(editor, range); // never the record selected: a key typed next would replace it
  return editor;
}
