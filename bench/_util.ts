/** Helpers for benchmarks: timing with warm-up, and heap figures. */

/** Runs `fn` `warmup` times, then `runs` times; returns the median wall time in milliseconds. */
export function medianMs(fn: () => void, runs = 5, warmup = 1): number {
  for (let i = 0; i < warmup; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Formats a number with at most `digits` fraction digits. */
export const fmt = (n: number, digits = 1): string => n.toLocaleString('en-US', { maximumFractionDigits: digits });
