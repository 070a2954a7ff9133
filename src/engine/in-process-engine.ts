/**
 * The {@link TraceEngine} on the calling thread: the CLI, the benches and unit tests use it; the
 * extension uses the worker (src/host/engine-client.ts). Same code, same answers, no messages.
 */
import { asyncCalls } from './engine-calls';
import type { AsyncCalls, LoadProgress, LoadRequest, TraceEngine } from './trace-engine';
import { SessionStore } from './session-store';
import type { SessionSummary } from './summary';
import type { EngineCalls } from './worker-protocol';

let nextLoad = 1;

// The query methods come from asyncCalls (declaration merging: the class has them from the constructor).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface InProcessEngine extends AsyncCalls {}

/** Runs parse, analysis and graph windows on the calling thread. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class InProcessEngine implements TraceEngine {
  private readonly store: SessionStore;

  /** @param options see {@link SessionStore}. */
  constructor(options: ConstructorParameters<typeof SessionStore>[0] = {}) {
    this.store = new SessionStore(options);
    const store = this.store as unknown as Record<keyof EngineCalls, (...args: unknown[]) => unknown>;
    Object.assign(this, asyncCalls(async (method, args) => store[method](...args) as never));
  }

  load(request: LoadRequest, onProgress?: (p: LoadProgress) => void): Promise<SessionSummary | undefined> {
    return this.store.load(request, nextLoad++, onProgress);
  }

  cancel(key: string): void {
    this.store.cancel(key);
  }

  release(key: string): void {
    this.store.release(key);
  }

  onDidRestart(): () => void {
    return () => undefined; // nothing restarts on this thread
  }

  dispose(): void {}
}
