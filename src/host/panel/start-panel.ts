/**
 * npm start's graph panel, made while the extension's bundle is evaluated, before `activate`:
 * VS Code calls `activate` only once the extension's storage is ready, which on a busy start came
 * 0.2–0.7 s after the bundle had loaded; building the webview, the longest part of the start,
 * overlaps that wait. Only when npm start set OTRACE_START_TRACE (users never do). The messages
 * its page sends before `activate` takes the panel over are kept for the graph view. The panel takes
 * the keyboard: a user who opened a trace to see its run presses → to step it, and those keys went
 * into the trace file.
 */
import * as vscode from 'vscode';
import type { WebviewMessage } from '../../shared/protocol';
import { markStart } from '../start-report';
import { graphHtml, graphWebviewOptions } from './graph-html';
import { graphPanelTitle } from './panel-title';

/** A side graph panel made before activation, with what its page said meanwhile. */
export interface StartPanel {
  panel: vscode.WebviewPanel;
  /** The trace it is for. */
  uri: vscode.Uri;
  /** Messages from its page so far, oldest first. */
  messages: WebviewMessage[];
}

let made: (StartPanel & { stop(): void; closed: boolean }) | undefined;

/**
 * Opens the graph panel of npm start's trace (OTRACE_START_TRACE) beside the active editor, its page
 * loading; does nothing without the variable or when done already. `viewType`: the side panel's.
 */
export function openStartPanel(extensionUri: vscode.Uri, viewType: string, file = process.env.OTRACE_START_TRACE): void {
  if (!file || made) return;
  const panel = vscode.window.createWebviewPanel(viewType, graphPanelTitle(file), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, graphWebviewOptions(extensionUri));
  markStart('graph panel created');
  panel.webview.html = graphHtml(panel.webview, extensionUri);
  const messages: WebviewMessage[] = [];
  const listening = [panel.webview.onDidReceiveMessage((m: WebviewMessage) => messages.push(m)), panel.onDidDispose(() => made && (made.closed = true))];
  made = { panel, uri: vscode.Uri.file(file), messages, closed: false, stop: () => listening.forEach((d) => d.dispose()) };
}

/** Hands over the panel made for `uri` (once; undefined if none was made, or it was closed). */
export function takeStartPanel(uri: vscode.Uri): StartPanel | undefined {
  const taken = made;
  if (!taken || taken.uri.toString() !== uri.toString()) return undefined;
  taken.stop();
  if (taken.closed) return undefined;
  return { panel: taken.panel, uri: taken.uri, messages: taken.messages };
}
