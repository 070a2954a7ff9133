/**
 * The names of the engine's calls ({@link EngineCalls}), and the object that sends each of them
 * one way (a message to the worker, or a direct call): both engines build their query methods
 * from it, so a call added to the protocol is added to both. No heavy imports: the host loads it.
 */
import type { AsyncCalls } from './trace-engine';
import type { EngineCalls } from './worker-protocol';

/** Every call of the protocol (the compiler checks the list is complete). */
const CALL_NAMES = {
  configure: true,
  detect: true,
  openRequest: true,
  eventAt: true,
  eventPlace: true,
  eventInfo: true,
  eventContent: true,
  fileMarks: true,
  recordLabels: true,
  eventString: true,
  longStringAt: true,
  codeLenses: true,
  outline: true,
  sourcePrompt: true,
  promptUsers: true,
  filesChanged: true,
  inspect: true,
  graphOverview: true,
  graphOverviewBytes: true,
  graphOverviewUpdate: true,
  graphWindow: true,
  graphEvent: true,
  findEvents: true,
  runTool: true,
  labelTarget: true,
  newLabelLine: true,
  sessionLabels: true,
  compareSessions: true,
} satisfies Record<keyof EngineCalls, true>;

/** Sends one call and resolves with its answer. */
export type CallSender = <M extends keyof EngineCalls>(method: M, args: Parameters<EngineCalls[M]>) => Promise<ReturnType<EngineCalls[M]>>;

/** An object with one async method per call, each passing its arguments to `send`. */
export function asyncCalls(send: CallSender): AsyncCalls {
  const out: Record<string, unknown> = {};
  for (const method of Object.keys(CALL_NAMES) as (keyof EngineCalls)[]) out[method] = (...args: unknown[]) => send(method, args as never);
  return out as AsyncCalls;
}
