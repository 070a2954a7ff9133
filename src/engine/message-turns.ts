/**
 * The turns a load gives the engine's messages between its phases (src/engine/worker-main.ts):
 * requests that came in are answered, and answers given to a channel that writes them later (a
 * child process's IPC pipe, a pipe's worth, 64 KB, per turn of the event loop) are written before
 * the next phase starts. Without it a 15 MB overview of a 1M-event trace reached the host after the
 * analysis, 10 s late, and every progress report behind it. Pure: Node's timers only.
 */
export class MessageTurns {
  private unsent = 0;
  private waiting: (() => void)[] = [];

  /** Counts an answer handed to the channel; @returns the callback to call once it is written (or failed). */
  private sending(): () => void {
    this.unsent++;
    let called = false;
    return () => {
      if (called) return;
      called = true;
      if (--this.unsent > 0) return;
      const waiting = this.waiting;
      this.waiting = [];
      for (const resume of waiting) resume();
    };
  }

  /**
   * Hands an answer to the channel: `send` is given the callback to call once it is written (or
   * failed). A send that throws (an answer that cannot be serialized) counts as written, then the
   * error passes: else every later turn would wait for it, and the next load would hang.
   */
  hand(send: (written: () => void) => void): void {
    const written = this.sending();
    try {
      send(written);
    } catch (err) {
      written();
      throw err;
    }
  }

  /** Answers handed to the channel and not yet written. */
  get pending(): number {
    return this.unsent;
  }

  /**
   * Resolves after a turn of the event loop that polled for input (messages that came in were
   * handled), and once every answer handed to the channel is written. Two immediates: work resumed
   * by a write's end runs in the loop's poll phase, and an immediate set there runs in the same
   * turn, before the loop polls again (a request for the overview then waited a whole analysis
   * phase: 1 s after an append at 1M events).
   */
  turn(): Promise<void> {
    return new Promise<void>((resume) =>
      setImmediate(() =>
        setImmediate(() => {
          if (this.unsent === 0) resume();
          else this.waiting.push(resume);
        }),
      ),
    );
  }
}
