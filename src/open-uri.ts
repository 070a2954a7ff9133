/**
 * The `vscode://otrace.otrace/open?path=ABSOLUTE_PATH` handler that `otrace open PATH` uses with a
 * desktop VS Code: it opens a trace file (or a folder's newest trace) and its graph beside it.
 * It only opens files for reading, and only traces: an absolute local path to an existing regular
 * file whose content is a known trace format; anything else is refused with a message. The path
 * goes through the openable-file policy (src/editor/open-policy.ts: file paths only, symbolic links
 * resolved, messages escaped); a link names the file itself, so it is not asked about the way a
 * path inside a trace is.
 */
import * as vscode from 'vscode';
import { escapeForMessage, judgePath } from './editor/open-policy';
import { OpenTargetError, traceOfOpenRequest } from './open-target';

/** Something that opens a trace's graph beside its editor (GraphPanels). */
export interface GraphOpener {
  openToSide(uri: vscode.Uri): unknown;
}

/** Opens the trace file at `file` in the first column and its graph beside it. */
export async function openTraceWithGraph(file: string, panels: GraphOpener): Promise<void> {
  const verdict = judgePath(file, file, []);
  if (verdict.kind === 'refuse') throw new OpenTargetError(verdict.reason);
  if (verdict.kind === 'missing') throw new OpenTargetError(`no such file: ${verdict.shown}`);
  const uri = verdict.uri;
  await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.One, preview: false });
  await panels.openToSide(uri);
}

/** Registers the `vscode://otrace.otrace/open` handler. */
export function registerOpenUri(context: vscode.ExtensionContext, panels: GraphOpener): void {
  context.subscriptions.push(
    vscode.window.registerUriHandler({
      async handleUri(uri: vscode.Uri) {
        try {
          await openTraceWithGraph(traceOfOpenRequest(uri.path, uri.query), panels);
        } catch (err) {
          void vscode.window.showErrorMessage(`otrace: cannot open the trace: ${escapeForMessage((err as Error).message)}`);
        }
      },
    }),
  );
}
