/**
 * The `vscode://otrace.otrace/open?path=ABSOLUTE_PATH` handler that `otrace open PATH` uses with a
 * desktop VS Code: it opens a trace file (or a folder's newest trace) and its graph beside it.
 * It only opens files for reading, and only traces: an absolute local path to an existing regular
 * file whose content is a known trace format (src/engine/open-target.ts, through the openable-file
 * policy's path checks); anything else is refused with an escaped message.
 */
import * as vscode from 'vscode';
import { messageText } from '../shared/untrusted-text';
import type { TraceEngine } from '../engine/trace-engine';
import { logError } from './log';

/** Something that opens a trace's graph beside its editor (GraphPanels). */
export interface GraphOpener {
  openToSide(uri: vscode.Uri): unknown;
}

/** Opens the trace file at `file` in the first column and its graph beside it. */
export async function openTraceWithGraph(file: string, panels: GraphOpener): Promise<void> {
  const uri = vscode.Uri.file(file);
  await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One, preview: false });
  await panels.openToSide(uri);
}

/**
 * Registers the `vscode://otrace.otrace/open` handler; the engine checks the request (src/engine/open-target.ts).
 * Returns the handler (the integration tests call it as VS Code would, with a link's URI).
 */
export function registerOpenUri(context: vscode.ExtensionContext, panels: GraphOpener, engine: Pick<TraceEngine, 'openRequest'>): vscode.UriHandler {
  const handler = {
    async handleUri(uri: vscode.Uri): Promise<void> {
      try {
        const answer = await engine.openRequest(uri.path, uri.query);
        if ('error' in answer) throw new Error(answer.error);
        await openTraceWithGraph(answer.trace, panels);
      } catch (err) {
        logError(`opening ${uri.toString()}`, err);
        void vscode.window.showErrorMessage(messageText`otrace: cannot open the trace: ${(err as Error).message}`);
      }
    },
  };
  context.subscriptions.push(vscode.window.registerUriHandler(handler));
  return handler;
}
