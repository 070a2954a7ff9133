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

/** Tasks sent ahead to each worker, so that none waits while this thread is busy with a task of its own. */
const QUEUED = 4;

/**
 * Runs `tasks` on `jobs` threads and returns their results in task order: this thread is one of them
 * when `local` is given (it runs a task, then lets the workers' answers in, and so on), the others are
 * worker threads (at most one per task). Each worker gets `data` (as `workerData[POOL_MARK]`) and
 * answers each task it is sent with one result ({@link serveTasks}); {@link QUEUED} tasks are kept
 * queued per worker.
 * @param local this thread's way of running a task: the same function the workers run on `data`.
 * @param onResult called on this thread as each result comes in (in the order they come), with the task's index and its result.
 * @throws the first error of a worker (its thread failed: a task's own problems are results, not errors), or of `onResult`.
 */
export function runPool<T, R>(tasks: readonly T[], jobs: number, data: unknown, onResult?: (k: number, result: R) => void, local?: (task: T) => R): Promise<R[]> {
  if (!script) return Promise.reject(new Error('worker threads need the CLI bundle (dist/cli.js)'));
  const results = new Array<R>(tasks.length);
  const count = Math.max(local ? 0 : 1, Math.min(jobs - (local ? 1 : 0), tasks.length - (local ? 1 : 0)));
  const workers: Worker[] = [];
  let next = 0;
  let done = 0;
  return new Promise<R[]>((resolve, reject) => {
    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      for (const w of workers) void w.terminate();
      if (err) reject(err instanceof Error ? err : new Error(String(err)));
      else resolve(results);
    };
    const got = (k: number, result: R) => {
      results[k] = result;
      done++;
      try {
        onResult?.(k, result);
      } catch (err) {
        finish(err); // the caller's own failure (its output cannot be written): the run ends with it
        return;
      }
      if (done === tasks.length) finish();
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
        got(m.k, m.result);
        send(w);
      });
      w.on('error', finish);
      w.on('exit', (code) => {
        if (done < tasks.length) finish(new Error(`a worker thread stopped (exit code ${code}) before its tasks were done`));
      });
      for (let q = 0; q < QUEUED; q++) send(w);
    }
    if (!local) return;
    // this thread's share: one task at a time, the workers' answers let in between
    const step = () => {
      if (settled || next >= tasks.length) return;
      const k = next++;
      try {
        got(k, local(tasks[k]));
      } catch (err) {
        finish(err);
        return;
      }
      setImmediate(step);
    };
    setImmediate(step);
  });
}

/**
 * The worker's side of {@link runPool}: answers every task posted to it with `handle(task, data)`.
 * Call it in the bundle when `workerData[POOL_MARK]` is set.
 */
export function serveTasks<T, R>(port: import('node:worker_threads').MessagePort, data: unknown, handle: (task: T, data: unknown) => R): void {
  port.on('message', (m: { k: number; task: T }) => port.postMessage({ k: m.k, result: handle(m.task, data) }));
}
