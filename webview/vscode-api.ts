/**
 * The webview's line to the extension host: messages out (`post`) and the state VS Code keeps for
 * the page across hiding the panel and reloading the window (`getState`/`setState`).
 */
import type { WebviewMessage } from '../src/shared/protocol';

declare function acquireVsCodeApi(): { postMessage(message: WebviewMessage): void; getState(): unknown; setState(state: unknown): void };

/** VS Code's API object: acquired once per page (a second acquire throws). */
const vscode = acquireVsCodeApi();

/** Sends a message to the extension host. */
export function post(message: WebviewMessage): void {
  vscode.postMessage(message);
}

/** The state last saved for this page, as saved (unknown shape: an older version may have saved it). */
export function getState(): unknown {
  return vscode.getState();
}

/** Saves the page's state (JSON-serialisable). */
export function setState(state: unknown): void {
  vscode.setState(state);
}
