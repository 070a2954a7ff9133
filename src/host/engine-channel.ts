/**
 * How the host reaches the engine's bundle (dist/engine-worker.js): a `worker_threads` Worker (the
 * extension's way: one process, messages by structured clone, bytes moved) or a child process
 * (`fork`, advanced serialization: the engine's memory is not in the host's process). Both are
 * one small interface, so the {@link WorkerEngine} does not care which.
 */
import { fork } from 'node:child_process';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { FromWorker, ToWorker } from '../engine/worker-protocol';

/** A running engine: send messages, hear answers and its end, keep the host alive while waiting. */
export interface EngineChannel {
  /** The worker's thread id, or the child's process id. */
  readonly id: number;
  send(message: ToWorker): void;
  onMessage(listener: (m: FromWorker) => void): void;
  /** Called once when the engine stops (an error, an exit, out of memory). */
  onEnd(listener: (err: Error) => void): void;
  /** true: an answer is awaited (the host process stays alive for it); false: idle. */
  hold(waiting: boolean): void;
  stop(): Promise<unknown>;
}

/** How to run the engine: `thread` (the extension) or `process`. */
export type EngineMode = 'thread' | 'process';

/** Starts the engine's bundle at `script`. @param resourceLimits heap limits (threads only). */
export function startEngine(script: string, mode: EngineMode, resourceLimits?: ResourceLimits): EngineChannel {
  return mode === 'thread' ? threadChannel(script, resourceLimits) : processChannel(script);
}

function threadChannel(script: string, resourceLimits?: ResourceLimits): EngineChannel {
  const worker = new Worker(script, { resourceLimits });
  let ended = false;
  const end = (listener: (err: Error) => void) => (err: Error) => {
    if (!ended) listener(err);
    ended = true;
  };
  return {
    id: worker.threadId,
    send: (m) => worker.postMessage(m),
    onMessage: (listener) => worker.on('message', listener),
    onEnd: (listener) => {
      worker.on('error', end(listener));
      worker.on('exit', (code) => end(listener)(new Error(`the otrace engine stopped (exit code ${code})`)));
    },
    hold: (waiting) => (waiting ? worker.ref() : worker.unref()),
    stop: () => worker.terminate(),
  };
}

function processChannel(script: string): EngineChannel {
  // In VS Code's Electron, process.execPath is Electron: run it as plain Node.
  const child = fork(script, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  let ended = false;
  const end = (listener: (err: Error) => void) => (err: Error) => {
    if (!ended) listener(err);
    ended = true;
  };
  return {
    id: child.pid ?? -1,
    send: (m) => child.send(m),
    onMessage: (listener) => child.on('message', (m) => listener(m as FromWorker)),
    onEnd: (listener) => {
      child.on('error', end(listener));
      child.on('exit', (code, signal) => end(listener)(new Error(`the otrace engine stopped (exit code ${code ?? signal})`)));
    },
    hold: (waiting) => {
      if (waiting) {
        child.ref();
        child.channel?.ref();
      } else {
        child.unref();
        child.channel?.unref();
      }
    },
    stop: async () => child.kill(),
  };
}
