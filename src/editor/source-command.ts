/**
 * "otrace: Go to Source Prompt" (command, Go to Definition, hover and CodeLens links, the graph's
 * Open Source Prompt button): opens the prompt that produced an event by the rule of
 * {@link sourcePromptOf}, through the openable-file policy.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { eventAt } from '../session/snapshot';
import { sourcePromptOf, type PromptTarget } from '../session/source-prompt';
import type { TraceSnapshot } from '../session/snapshot';
import { judgePath, openTracePath, workspaceRoots } from './open-policy';
import { toRange, type TraceSessions } from './trace-sessions';

/** Arguments of the command when it comes from a link or the graph; none means "the event at the cursor". */
export interface EventRef {
  /** Session key (the trace's URI string). */
  trace: string;
  index: number;
  viewColumn?: vscode.ViewColumn;
}

/** The session and event at a position of a document (the trace itself or one of its sub-agent files). */
export async function eventAtPosition(sessions: TraceSessions, document: vscode.TextDocument, at: vscode.Position): Promise<{ snapshot: TraceSnapshot; index: number } | undefined> {
  await sessions.forDocument(document);
  const found = sessions.containing(document.uri);
  if (!found) return undefined;
  const index = eventAt(found.snapshot, found.file, { line: at.line, character: at.character });
  return index === undefined ? undefined : { snapshot: found.snapshot, index };
}

/** The session and event under the cursor of a text editor. */
export function eventAtCursor(sessions: TraceSessions, editor: vscode.TextEditor | undefined): Promise<{ snapshot: TraceSnapshot; index: number } | undefined> {
  return editor ? eventAtPosition(sessions, editor.document, editor.selection.active) : Promise.resolve(undefined);
}

/** Where a prompt target is, as a location to show; undefined when the policy does not let it open directly. */
export function promptLocation(snapshot: TraceSnapshot, target: PromptTarget): vscode.Location | undefined {
  if (target.kind === 'event') {
    const origin = snapshot.loaded.eventOrigins[target.index];
    if (!origin) return undefined;
    if (!origin.file) return new vscode.Location(vscode.Uri.parse(snapshot.key), toRange(origin.range).start);
    const verdict = judgePath(origin.file, snapshot.path, workspaceRoots());
    return verdict.kind === 'open' ? new vscode.Location(verdict.uri, toRange(origin.range).start) : undefined;
  }
  const verdict = judgePath(target.path, snapshot.path, workspaceRoots());
  if (verdict.kind !== 'open') return undefined;
  const pos = new vscode.Position(Math.max(0, (target.line ?? 1) - 1), Math.max(0, (target.column ?? 1) - 1));
  return new vscode.Location(verdict.uri, pos);
}

/** Runs "Go to Source Prompt" for an event reference or the event at the cursor. */
export async function goToSourcePrompt(sessions: TraceSessions, ref?: EventRef): Promise<void> {
  let snapshot: TraceSnapshot | undefined;
  let index: number | undefined;
  if (ref && typeof ref.trace === 'string' && typeof ref.index === 'number') {
    snapshot = sessions.peek(vscode.Uri.parse(ref.trace));
    index = ref.index;
  } else {
    const at = await eventAtCursor(sessions, vscode.window.activeTextEditor);
    snapshot = at?.snapshot;
    index = at?.index;
  }
  if (!snapshot || index === undefined) {
    void vscode.window.showInformationMessage('otrace: put the cursor on an event of a trace file to go to its source prompt.');
    return;
  }
  const target = sourcePromptOf(snapshot, index);
  const line = (snapshot.loaded.eventOrigins[index]?.range.start.line ?? 0) + 1;
  if (!target) {
    void vscode.window.showInformationMessage(`otrace: the event at line ${line} of ${path.basename(snapshot.path)} names no source prompt, and no user prompt or spawn call comes before it.`);
    return;
  }
  const options: vscode.TextDocumentShowOptions = { viewColumn: ref?.viewColumn, preview: true };
  if (target.kind === 'path') {
    await openTracePath(target.path, snapshot.path, { line: target.line, column: target.column }, options);
    return;
  }
  await showEventRecord(snapshot, target.index, options);
}

/**
 * Opens the file an event came from at the start of its record (the trace, or a sub-agent file,
 * which goes through the openable-file policy like any path a trace names), centred.
 */
export async function showEventRecord(snapshot: TraceSnapshot, index: number, options: vscode.TextDocumentShowOptions = {}): Promise<vscode.TextEditor | undefined> {
  const origin = snapshot.loaded.eventOrigins[index];
  if (!origin) return undefined;
  const range = toRange(origin.range);
  const start = range.start;
  const editor = origin.file
    ? await openTracePath(origin.file, snapshot.path, { line: start.line + 1, column: start.character + 1 }, options)
    : await vscode.window.showTextDocument(vscode.Uri.parse(snapshot.key), { ...options, selection: new vscode.Range(start, start) });
  if (!editor) return undefined;
  // the record highlighted, the cursor at its start, the start centred (a 60,000-character line must not scroll sideways)
  editor.selection = new vscode.Selection(range.end, range.start);
  editor.revealRange(new vscode.Range(start, start), vscode.TextEditorRevealType.InCenter);
  return editor;
}
