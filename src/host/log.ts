/**
 * The "otrace" output channel (a LogOutputChannel: Output view, "otrace"; or the command otrace:
 * Show Log): where the host writes the errors it does not show the user, such as an engine call that
 * failed (with the worker's stack when the engine sent one), a trace that could not be read again in
 * the background, or a mapping file list that could not be read. Nothing here becomes a
 * notification. The channel is plain text; untrusted parts of a message (file names, trace content)
 * are written on one line with control characters shown (`⟨U+…⟩`), so they cannot forge log lines.
 */
import * as vscode from 'vscode';
import { errorText } from './log-text';

let channel: vscode.LogOutputChannel | undefined;

/** Creates the channel (once per activation); disposing the result closes it, and later messages are dropped. */
export function createLog(): vscode.Disposable {
  const made = (channel ??= vscode.window.createOutputChannel('otrace', { log: true }));
  return {
    dispose: () => {
      if (channel === made) channel = undefined;
      made.dispose();
    },
  };
}

/** Shows the channel (the command otrace: Show Log), keeping the focus where it is. */
export function showLog(): void {
  channel?.show(true);
}

/** Writes an error to the channel (nothing when there is none: before activation, after it ended). */
export function logError(what: string, err: unknown): void {
  channel?.error(errorText(what, err));
}

/** Writes an expected failure (a file gone, a malformed link) at the debug level: shown when the channel's level is Debug. */
export function logDebug(what: string, err: unknown): void {
  channel?.debug(errorText(what, err));
}

/**
 * For a promise whose failure the user need not see: `.catch(logged('reading the trace again'))`
 * logs the rejection and answers `fallback` (default undefined), as the promise did before it
 * failed silently.
 */
export function logged(what: string): (err: unknown) => undefined;
export function logged<T>(what: string, fallback: T): (err: unknown) => T;
export function logged<T>(what: string, fallback?: T): (err: unknown) => T | undefined {
  return (err) => {
    logError(what, err);
    return fallback;
  };
}
