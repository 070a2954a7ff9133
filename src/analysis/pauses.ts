/**
 * Pauses inside the long phases of an analysis (issue #30). At 1M events a phase takes up to a
 * second (the content links of the credit 1.1 s, the stop verdicts 0.8 s, the repeated tool calls
 * 0.4 s), and the engine's worker answers the graph's requests, and takes the newer read of a
 * growing file, only where the analysis yields. A phase yields `'pause'` at a seam of its work
 * (between two loop detectors, between two stops' verdicts, between the stages of the credit) once
 * {@link PAUSE_AFTER_MS} passed since the analysis last yielded, so a request waits about that
 * long plus one stage, not a whole phase. A pause changes nothing the analysis computes.
 */

/** Default time (ms) after which a phase yields at its next seam. */
export const PAUSE_AFTER_MS = 40;

/** What a phase yields at a seam inside it (no phase ended). */
export type Pause = 'pause';

/** When the analysis last yielded, to tell whether a seam should pause. */
export class PauseClock {
  private last = Date.now();

  /** @param afterMs pause at a seam once this many ms passed since the last yield (0: at every seam; Infinity: never). */
  constructor(private readonly afterMs = PAUSE_AFTER_MS) {}

  /** True when a seam should pause now ({@link pause}). */
  due(): boolean {
    return this.afterMs !== Infinity && Date.now() - this.last >= this.afterMs;
  }

  /** Yields `'pause'`; the time counts again from when the analysis goes on. */
  *pause(): Generator<Pause, void, void> {
    yield 'pause';
    this.reset();
  }

  /** The analysis goes on after it yielded (a phase ended): the time counts from now. */
  reset(): void {
    this.last = Date.now();
  }
}

/** Runs the steps of a phase to their end, without pausing: the phase's value. */
export function withoutPauses<T>(steps: Generator<Pause, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
