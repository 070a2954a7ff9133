/**
 * The engine (built as dist/engine-worker.js): it owns the trace sessions (reading files from disk,
 * parse, import, analysis, graph windows) and answers the host's messages
 * (src/engine/worker-protocol.ts). The extension starts it as a child process (`fork`, advanced
 * serialization: messages over IPC), or as a `worker_threads` Worker (`otrace.engine.ownProcess` off).
 */
import { parentPort } from 'node:worker_threads';
import { countBuffersInHeapLimit } from './heap-accounting';
import { MessageTurns } from './message-turns';
import { SessionStore } from './session-store';
import type { EngineCalls, FromWorker, ToWorker } from './worker-protocol';

/** The turns a load gives messages between its phases; a child process's answers are written in them (message-turns.ts). */
const turns = new MessageTurns();

/** Where messages come from and go to: the thread's port, or the process's IPC channel. */
const port = parentPort ?? {
  on: (event: 'message', listener: (m: ToWorker) => void) => process.on(event, listener as (m: unknown) => void),
  postMessage: (m: FromWorker) => {
    // the callback: once the message is written, or failed (the host is gone: the process ends on `disconnect`)
    turns.hand((written) => process.send!(m, undefined, {}, written));
  },
};

// A child process ends with its host (the IPC channel closes). Its heap is its own: typed arrays an
// analysis holds count towards its limit, not as garbage (heap-accounting.ts); a thread's is the host's.
if (!parentPort) {
  process.on('disconnect', () => process.exit(0));
  countBuffersInHeapLimit();
}

const store = new SessionStore({ yieldToMessages: () => turns.turn() });
const calls = store as unknown as Record<keyof EngineCalls, (...args: unknown[]) => unknown>;

/** Sends an answer; bytes (an overview's JSON and columns) are moved to the host, not copied. */
function reply(m: FromWorker): void {
  const moved = parentPort ? bytesIn('result' in m ? m.result : undefined) : [];
  if (moved.length && parentPort) parentPort.postMessage(m, moved);
  else port.postMessage(m);
}

/**
 * The buffers of the byte arrays an answer holds (itself, or its own members one level down),
 * each once. Only answers made for moving hold any: their buffers are their own, never shared
 * with a session's data.
 */
function bytesIn(result: unknown): ArrayBuffer[] {
  const values = result instanceof Uint8Array ? [result] : result && typeof result === 'object' ? Object.values(result) : [];
  const buffers = values.filter((v): v is Uint8Array => v instanceof Uint8Array).map((v) => v.buffer as ArrayBuffer);
  return [...new Set(buffers)];
}

/** The answer of a failed request: the error's message (the host may show it) and its stack here (the host logs it). */
function failure(id: number, err: unknown): FromWorker {
  return err instanceof Error ? { id, error: err.message, stack: err.stack } : { id, error: String(err) };
}

port.on('message', (m: ToWorker) => {
  switch (m.kind) {
    case 'call':
      try {
        reply({ id: m.id, result: calls[m.method](...m.args) });
      } catch (err) {
        reply(failure(m.id, err));
      }
      return;
    case 'load':
      store.load(m.request, m.id, (progress) => reply({ id: m.id, progress })).then(
        (result) => reply({ id: m.id, result }),
        (err: unknown) => reply(failure(m.id, err)),
      );
      return;
    case 'cancel':
      store.cancel(m.key);
      return;
    case 'release':
      store.release(m.key);
      return;
  }
});
