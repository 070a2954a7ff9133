/**
 * otrace's language model tools in VS Code (issue 29): each tool of src/engine/chat-tools.ts is
 * registered with vscode.lm.registerTool (package.json `contributes.languageModelTools` declares
 * them with the same input schemas) and answered by the engine's worker, on the trace in view or a
 * file the input names. A named file is read only when it is in a workspace folder or open in VS
 * Code: a model's input is no reason to read any file on the machine. The answer is the facts as
 * JSON in one LanguageModelTextPart; trace content in it is plain text.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CHAT_TOOL_NAMES, answerText, type ChatToolAnswer, type ChatToolName } from '../../engine/chat-tool-names';
import type { SessionSummary } from '../../engine/summary';
import type { OpenTraces } from '../open-traces';

/** The trace a graph panel follows, when one does (the graph of the trace in view). */
export interface FollowedGraph {
  readonly followingView?: { readonly traceUri: vscode.Uri };
}

/** The words shown while a tool runs. */
const RUNNING: Record<ChatToolName, string> = {
  otrace_summary: 'Reading the run summary',
  otrace_findings: "Reading otrace's findings",
  otrace_blame: 'Reading the blame',
  otrace_events: 'Reading events',
  otrace_compare: 'Comparing two runs',
};

/** Registers every tool; returns their disposables. */
export function registerChatTools(sessions: OpenTraces, graphs: FollowedGraph): vscode.Disposable[] {
  return CHAT_TOOL_NAMES.map((name) =>
    vscode.lm.registerTool<Record<string, unknown>>(name, {
      prepareInvocation: () => ({ invocationMessage: `otrace: ${RUNNING[name]}` }),
      invoke: async (options) => {
        const answer = await callTool(sessions, graphs, name, options.input);
        // an error thrown is what VS Code hands the model as the tool's failure
        if ('error' in answer) throw new Error(answer.error);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(answerText(answer.result))]);
      },
    }),
  );
}

/**
 * One tool call: the files the input names resolved (relative to the first workspace folder) and
 * checked, the trace in view found and read, then the engine's answer.
 * @returns the facts, or why there are none (never rejects on a bad input or file).
 */
export async function callTool(sessions: OpenTraces, graphs: FollowedGraph, name: ChatToolName, input: unknown): Promise<ChatToolAnswer> {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return { error: `${name}: the input must be an object` };
  const args: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const field of name === 'otrace_compare' ? ['a', 'b'] : ['file']) {
    const given = args[field];
    if (given === undefined) continue;
    if (typeof given !== 'string' || !given) return { error: `${name}: \`${field}\` must be a path` };
    const file = await allowedFile(sessions, given);
    if ('error' in file) return file;
    args[field] = file.path;
  }
  const view = await traceInView(sessions, graphs);
  return sessions.engine.runTool(name, args, view && { key: view.key, stamp: view.stamp });
}

/**
 * The absolute path of a file a tool input names, when otrace may read it: inside a workspace
 * folder, or open in VS Code (a text document or a trace session). An open trace is read first so
 * the engine answers from its session (with its unsaved edits).
 */
async function allowedFile(sessions: OpenTraces, given: string): Promise<{ path: string } | { error: string }> {
  const folders = vscode.workspace.workspaceFolders?.filter((f) => f.uri.scheme === 'file') ?? [];
  const abs = path.isAbsolute(given) ? path.normalize(given) : folders[0] ? path.resolve(folders[0].uri.fsPath, given) : undefined;
  if (!abs) return { error: `${given} is a relative path and no folder is open: give an absolute path` };
  const document = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === abs);
  if (document) {
    await sessions.forDocument(document);
    return { path: abs };
  }
  if (sessions.all().some((s) => s.path === abs)) return { path: abs };
  const inside = folders.some((f) => {
    const rel = path.relative(f.uri.fsPath, abs);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  });
  return inside ? { path: abs } : { error: `${given} is outside the workspace folders and not open in VS Code: otrace reads no other file for a model (open it first)` };
}

/**
 * The trace in view, read: the active text editor's (a sub-agent file: the session holding it), else
 * the active graph editor's, else the trace the graph beside follows, else a visible editor's
 * trace, else the only trace open. Undefined when there is none.
 */
export async function traceInView(sessions: OpenTraces, graphs: FollowedGraph): Promise<SessionSummary | undefined> {
  const ofDocument = async (document: vscode.TextDocument) => sessions.containing(document.uri)?.summary ?? (await sessions.forDocument(document));
  const active = vscode.window.activeTextEditor;
  const fromActive = active && (await ofDocument(active.document));
  if (fromActive) return fromActive;
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (tab instanceof vscode.TabInputCustom) {
    const summary = await sessions.forUri(tab.uri);
    if (summary) return summary;
  }
  const followed = graphs.followingView?.traceUri;
  if (followed) return sessions.forUri(followed);
  for (const editor of vscode.window.visibleTextEditors) {
    const summary = await ofDocument(editor.document);
    if (summary) return summary;
  }
  const all = sessions.all();
  return all.length === 1 ? all[0] : undefined;
}
