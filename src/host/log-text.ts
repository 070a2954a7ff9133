/**
 * How an error is written to the "otrace" output channel (src/host/log.ts). Pure: no vscode, so
 * the unit tests run it.
 */
import { plainLabel, visibleControls } from '../shared/untrusted-text';

/**
 * An error as log text: what was being done and the error's message, each on one line with
 * controls shown (either may hold a file name or trace content), then the error's stack frames
 * (the worker's, for an engine error; see src/host/engine-client.ts).
 */
export function errorText(what: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // The frames come after the stack's `Name: message` head (a message's own lines are no frames).
  const stack = err instanceof Error && err.stack ? err.stack : '';
  const head = message ? stack.indexOf(message) : -1;
  const frames = (head === -1 ? stack : stack.slice(head + message.length)).split('\n').filter((l) => /^\s+at /.test(l));
  return [`${plainLabel(what)}: ${plainLabel(message)}`, ...frames.map((f) => visibleControls(f))].join('\n');
}
