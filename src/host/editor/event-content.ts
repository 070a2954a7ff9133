/**
 * "Show Whole Content": an event's whole content (importers keep large values whole; hovers and
 * the graph's details show a preview) in a read-only virtual document, `otrace-content:`, that
 * never asks to be saved and never touches the trace file.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OpenTraces } from '../open-traces';
import { logDebug } from '../log';

export const CONTENT_SCHEME = 'otrace-content';

/** The URI of an event's content: a readable name, the session key and event index in the query. */
export function eventContentUri(trace: string, index: number, eventId: string): vscode.Uri {
  const name = `${path.basename(vscode.Uri.parse(trace).path)} · ${eventId.replace(/[\\/?#]/g, '_').slice(0, 80)}.txt`;
  return vscode.Uri.from({ scheme: CONTENT_SCHEME, path: `/${name}`, query: JSON.stringify({ trace, index }) });
}

/**
 * Registers the content provider and the command `otrace.showEventContent` ({trace, index}; with
 * none, the event at the cursor). `preserveFocus` keeps the keyboard where it is (the graph).
 */
export function registerEventContent(sessions: OpenTraces, cursorRef: () => Promise<{ trace: string; index: number } | undefined>): vscode.Disposable[] {
  const provider: vscode.TextDocumentContentProvider = {
    async provideTextDocumentContent(uri) {
      let ref: { trace?: unknown; index?: unknown };
      try {
        ref = JSON.parse(uri.query) as typeof ref;
      } catch (err) {
        logDebug(`an event content link names no event: ${uri.toString()}`, err);
        return '';
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
