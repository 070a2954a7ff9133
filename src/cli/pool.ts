/**
 * A pool of worker threads (node:worker_threads) for commands over many traces: each worker runs
 * the CLI's own bundle (dist/cli.js, named by {@link setWorkerScript}) and answers one task at a
 * time; results come back in task order, whatever order the workers finish in.
 */
import * as os from 'node:os';
import { Worker } from 'node:worker_threads';

/** The script a worker runs (the CLI bundle); unset when the CLI runs from its sources (tests under tsx): then every command runs on one thread. */
let script: string | undefined;

/** Names the script workers run: the bundle that holds {@link serveTasks}'s caller (bin.ts passes its own file). */
export function setWorkerScript(file: string | undefined): void {
  script = file;
}

/** True when worker threads can be started (the CLI runs from its bundle). */
export function canStartWorkers(): boolean {
  return script !== undefined;
}

/** The default of `--jobs`: the cores Node may use (`os.availableParallelism()`), at least 1. */
export function defaultJobs(): number {
  return Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}

/** The marker in `workerData` that tells the bundle it runs as a pool worker. */
export const POOL_MARK = 'otracePoolWorker';

/**
 * Runs `tasks` on `jobs` worker threads (at most one per task) and returns their results in task order.
 * Each worker gets `data` (as `workerData[POOL_MARK]`) and answers each task it is sent with one result
 * ({@link serveTasks}). Two tasks are kept queued per worker so that none waits on this thread.
 * @param onResult called on this thread as each result comes back (progress), with the task's index.
 * @throws the first error of a worker (its thread failed: a task's own problems are results, not errors).
 */
export function runPool<T, R>(tasks: readonly T[], jobs: number, data: unknown, onResult?: (k: number) => void): Promise<R[]> {
  if (!script) return Promise.reject(new Error('worker threads need the CLI bundle (dist/cli.js)'));
  const results = new Array<R>(tasks.length);
  const count = Math.max(1, Math.min(jobs, tasks.length));
  const workers: Worker[] = [];
  let next = 0;
  let done = 0;
  return new Promise<R[]>((resolve, reject) => {
    let failed = false;
    const finish = (err?: unknown) => {
      if (failed) return;
      if (err) failed = true;
      for (const w of workers) void w.terminate();
      if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve(results);
    };
    const send = (w: Worker) => {
      if (next >= tasks.length) return;
      const k = next++;
      w.postMessage({ k, task: tasks[k] });
    };
    if (tasks.length === 0) return resolve(results);
    for (let i = 0; i < count; i++) {
      const w = new Worker(script!, { workerData: { [POOL_MARK]: data } });
      workers.push(w);
      w.on('message', (m: { k: number; result: R }) => {
        results[m.k] = m.result;
        done++;
        onResult?.(m.k);
        if (done === tasks.length) finish();
        else send(w);
      });
      w.on('error', finish);
      w.on('exit', (code) => {
        if (done < tasks.length && !failed) finish(new Error(`a worker thread stopped (exit code ${code}) before its tasks were done`));
      });
      send(w);
      send(w);
    }
  });
}

/**
 * The worker's side of {@link runPool}: answers every task posted to it with `handle(task, data)`.
 * Call it in the bundle when `workerData[POOL_MARK]` is set.
 */
export function serveTasks<T, R>(port: import('node:worker_threads').MessagePort, data: unknown, handle: (task: T, data: unknown) => R): void {
  port.on('message', (m: { k: number; task: T }) => port.postMessage({ k: m.k, result: handle(m.task, data) }));
}
