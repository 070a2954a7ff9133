/**
 * A step clock's span in words (a trace with no clock numbers its records: a benchmark log): the
 * steps it runs over, `steps 0–9`, never `9 steps`, which a user counts against its 10 records.
 * Shared by `otrace summary` and the graph's run summary.
 */

/**
 * @param from the first event's step; @param span the last event's step minus the first (steps).
 * @returns `steps 0–9`, or `step 4` when the span is 0.
 */
export function stepRange(from: number, span: number): string {
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return span === 0 ? `step ${round(from)}` : `steps ${round(from)}–${round(from + span)}`;
}
