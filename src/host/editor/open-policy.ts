/**
 * The one policy for every route that opens a file a trace names (Go to Definition, hover and
 * CodeLens links, Open Source Prompt, Show in Trace File): a trace is untrusted text, so the paths
 * in it are too.
 * - a file inside a workspace folder or under the trace's own folder opens directly;
 * - any other file asks first, in a modal that shows the path escaped;
 * - anything that is not a file path (`command:`, `http:`, ...) is refused with a message.
 * Symbolic links are resolved before the check. Messages never echo trace text unescaped.
 */
import * as vscode from 'vscode';
import { messageText, type MessageText } from '../../shared/untrusted-text';
import { classifyPath } from '../../engine/path-policy';

/** What the policy says about a target, as VS Code URIs and escaped text for messages. */
export type OpenVerdict =
  | { kind: 'open'; uri: vscode.Uri }
  | { kind: 'ask'; uri: vscode.Uri; shown: MessageText }
  | { kind: 'missing'; shown: MessageText }
  | { kind: 'refuse'; reason: MessageText };

/**
 * Judges a path named by a trace ({@link classifyPath}), for VS Code.
 * @param target the path as written (relative paths are relative to the trace's folder)
 * @param traceFile file system path of the trace file
 * @param roots file system paths of the workspace folders
 * @param traceFiles the files the trace was read from (see {@link classifyPath})
 */
export function judgePath(target: string, traceFile: string, roots: readonly string[], traceFiles?: readonly string[]): OpenVerdict {
  const v = classifyPath(target, traceFile, roots, traceFiles);
  switch (v.kind) {
    case 'refuse':
      return { kind: 'refuse', reason: messageText`otrace opens only files; this trace names a "${v.scheme}:" link, which was not opened.` };
    case 'missing':
      return { kind: 'missing', shown: messageText`${v.path}` };
    case 'open':
      return { kind: 'open', uri: vscode.Uri.file(v.path) };
    case 'ask':
      return { kind: 'ask', uri: vscode.Uri.file(v.path), shown: messageText`${v.path}` };
  }
}

/** The workspace folders' paths (file scheme only). */
export function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

/** Asks the user; tests replace it to answer without a dialog. Resolves true to open. */
export let confirmOpen = async (shown: MessageText): Promise<boolean> => {
  const answer = await vscode.window.showWarningMessage(
    'This trace points at a file outside your workspace and outside the trace\'s folder. Open it?',
    { modal: true, detail: shown },
    'Open',
  );
  return answer === 'Open';
};

/** For tests: replaces the confirmation (returns the previous one). */
export function setConfirmOpen(confirm: (shown: MessageText) => Promise<boolean>): (shown: MessageText) => Promise<boolean> {
  const before = confirmOpen;
  confirmOpen = confirm;
  return before;
}

/**
 * Opens a file a trace names, by the policy, at a 1-based line and column, in a text editor.
 * Resolves to the editor, or undefined when it was refused, missing or not confirmed (the user got
 * a message saying so). Never throws.
 */
export async function openTracePath(
  target: string,
  traceFile: string,
  at: { line?: number; column?: number },
  options: vscode.TextDocumentShowOptions = {},
  traceFiles?: readonly string[],
): Promise<vscode.TextEditor | undefined> {
  const verdict = judgePath(target, traceFile, workspaceRoots(), traceFiles);
  if (verdict.kind === 'refuse') {
    void vscode.window.showWarningMessage(verdict.reason);
    return undefined;
  }
  if (verdict.kind === 'missing') {
    void vscode.window.showWarningMessage(`otrace: the file this event points at does not exist: ${verdict.shown}`);
    return undefined;
  }
  if (verdict.kind === 'ask' && !(await confirmOpen(verdict.shown))) return undefined;
  const pos = new vscode.Position(Math.max(0, (at.line ?? 1) - 1), Math.max(0, (at.column ?? 1) - 1));
  try {
    return await vscode.window.showTextDocument(verdict.uri, { ...options, selection: new vscode.Range(pos, pos) });
  } catch (err) {
    void vscode.window.showWarningMessage(messageText`otrace: could not open ${verdict.uri.fsPath}: ${(err as Error).message}`);
    return undefined;
  }
}
