/**
 * The extension host's side of the engine: a {@link TraceEngine} whose sessions live in a worker
 * thread (dist/engine-worker.js, src/engine/worker-main.ts). The host only sends requests and
 * receives small answers (session summaries, one file's marks, one event's facts, graph windows),
 * so parse, import, analysis and graph windows never run on the extension host thread. A worker
 * that stops (out of memory, a crash) is started again on the next request; pending requests
 * reject, and {@link WorkerEngine.onDidRestart} tells the sessions to load again. The worker starts
 * on the first request that needs it (the first trace, or the first mapping file to read).
 */
import type { ResourceLimits } from 'node:worker_threads';
import type { AsyncCalls, LoadProgress, LoadRequest, TraceEngine } from '../engine/trace-engine';
import { asyncCalls } from '../engine/engine-calls';
import { startEngine, type EngineChannel, type EngineMode } from './engine-channel';
import type { SessionSummary } from '../engine/summary';
import type { FromWorker, MappingInput, ToWorker } from '../engine/worker-protocol';

/** A request waiting for its answer. */
interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  progress?: (p: LoadProgress) => void;
}

// The query methods come from asyncCalls (declaration merging: the class has them from the constructor).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface WorkerEngine extends AsyncCalls {}

/** Runs the trace sessions in a worker thread; every method sends one message. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class WorkerEngine implements TraceEngine {
  private worker: EngineChannel | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly restartListeners = new Set<() => void>();
  /** The mapping files last configured: a restarted worker gets them again. */
  private mappings: MappingInput[] | undefined;
  private disposed = false;
  /**
   * Receives every message sent to the worker, before it is sent (the integration tests watch what
   * starts it); a promise it returns holds that message back until it settles (the tests make one
   * answer come late, as a busy worker would).
   */
  probe: ((message: ToWorker) => unknown) | undefined;

  /**
   * @param script path of the worker's bundle (dist/engine-worker.js).
   * @param options `mode`: a worker thread (default: the extension's) or a child process (the
   *   bench compares them); `resourceLimits`: heap limits of a worker thread (default: Node's);
   *   `log`: told when the worker stops unasked (a crash, out of memory), with why.
   */
  constructor(
    private readonly script: string,
    private readonly options: { mode?: EngineMode; resourceLimits?: ResourceLimits; log?: (what: string, err: Error) => void } = {},
  ) {
    Object.assign(
      this,
      asyncCalls((method, args) => {
        if (method === 'configure') {
          this.mappings = args[0] as MappingInput[];
          // No mapping file to read: no reason to start a worker (one started later gets the list then).
          if (!this.worker && this.mappings.length === 0) return Promise.resolve([]) as never;
        }
        return this.request((id) => ({ kind: 'call', id, method, args }) as ToWorker) as never;
      }),
    );
  }

  load(request: LoadRequest, onProgress?: (p: LoadProgress) => void): Promise<SessionSummary | undefined> {
    return this.request((id) => ({ kind: 'load', id, request }), onProgress) as Promise<SessionSummary | undefined>;
  }

  cancel(key: string): void {
    if (this.worker) this.send(this.worker, { kind: 'cancel', key });
  }

  release(key: string): void {
    if (this.worker) this.send(this.worker, { kind: 'release', key });
  }

  onDidRestart(listener: () => void): () => void {
    this.restartListeners.add(listener);
    return () => this.restartListeners.delete(listener);
  }

  /** The worker's thread id (or the child's process id), once started: for tests and the bench. */
  get threadId(): number | undefined {
    return this.worker?.id;
  }

  private request(message: (id: number) => ToWorker, progress?: (p: LoadProgress) => void): Promise<unknown> {
    if (this.disposed) return Promise.reject(new Error('the otrace engine was disposed'));
    const id = this.nextId++;
    const worker = this.started();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, progress });
      worker.hold(true); // an answer is awaited: keep the process alive for it
      this.send(worker, message(id));
    });
  }

  private send(worker: EngineChannel, message: ToWorker): void {
    const held = this.probe?.(message);
    if (held instanceof Promise) void held.then(() => worker.send(message));
    else worker.send(message);
  }

  private started(): EngineChannel {
    if (this.worker) return this.worker;
    const worker = startEngine(this.script, this.options.mode ?? 'thread', this.options.resourceLimits);
    worker.onMessage((m) => this.answer(m));
    worker.onEnd((err) => this.lost(worker, err));
    worker.hold(false);
    this.worker = worker;
    if (this.mappings?.length) this.send(worker, { kind: 'call', id: this.nextId++, method: 'configure', args: [this.mappings] });
    return worker;
  }

  private answer(m: FromWorker): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if ('progress' in m) {
      p.progress?.(m.progress);
      return;
    }
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker?.hold(false);
    if ('error' in m) p.reject(engineError(m.error, m.stack));
    else p.resolve(m.result);
  }

  /** The worker stopped: every pending request fails, and the sessions are told to load again. */
  private lost(worker: EngineChannel, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(err);
    if (this.disposed) return;
    this.options.log?.('the engine worker stopped; it starts again for the next request', err);
    for (const listener of this.restartListeners) listener();
  }

  dispose(): void {
    this.disposed = true;
    const worker = this.worker;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(new Error('the otrace engine was disposed'));
    this.pending.clear();
    void worker?.stop();
  }
}

/** An error the worker answered, with the worker's stack (its frames are where it failed, not this thread's). */
function engineError(message: string, stack: string | undefined): Error {
  const err = new Error(message);
  if (stack) err.stack = stack;
  return err;
}
