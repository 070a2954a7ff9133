/**
 * The engine behind the trace sessions: it reads and analyzes traces and answers the editor's and
 * the graph's questions about them, behind an async interface. The extension uses a worker thread
 * ({@link WorkerEngine} in src/host/engine-client.ts), so no parse, import, analysis or graph
 * window runs on the extension host thread; the CLI and unit tests can use the same code on their
 * own thread (src/engine/in-process-engine.ts). Types only.
 */
import type { SessionSummary } from './summary';
import type { EngineCalls, LoadProgress, LoadRequest } from './worker-protocol';

export type { LoadRequest, LoadProgress } from './worker-protocol';

/** The calls of {@link EngineCalls}, answered asynchronously. */
export type AsyncCalls = { [M in keyof EngineCalls]: (...args: Parameters<EngineCalls[M]>) => Promise<ReturnType<EngineCalls[M]>> };

/**
 * Loads trace sessions and answers questions about their latest snapshots. Query methods answer
 * undefined when the session is unknown or its latest snapshot is not the one `stamp` names.
 */
export interface TraceEngine extends AsyncCalls {
  /**
   * Parses and analyzes one version of a trace (reading it from disk when the request has no text).
   * Never rejects on bad content (problems are in the summary); rejects when the file cannot be read.
   * @param onProgress receives each phase of the load as it starts.
   * @returns the session summary, or undefined when a newer load of the session or a cancel superseded it.
   */
  load(request: LoadRequest, onProgress?: (p: LoadProgress) => void): Promise<SessionSummary | undefined>;
  /** Stops a session's running load at its next phase. */
  cancel(key: string): void;
  /** Forgets a session (its file was closed). */
  release(key: string): void;
  /**
   * Calls `listener` when the engine lost its sessions (its worker stopped and was started again):
   * every session must be loaded again. Returns a function that removes the listener.
   */
  onDidRestart(listener: () => void): () => void;
  dispose(): void;
}
