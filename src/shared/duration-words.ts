/**
 * Durations as people read them, shared by the graph page (its clock, axis ticks) and the engine (the
 * details pane's fields): one wording of time everywhere a user reads it. Pure.
 */

/**
 * A duration as people read it: `850 ms`, `12.5 s`, `3 min`, `41 min 48 s`, `1 h 20 min`.
 * @param s seconds (a negative one keeps its sign below a minute only).
 */
export function formatDuration(s: number): string {
  const a = Math.abs(s);
  if (a === 0) return '0';
  if (a < 1) return `${Math.round(s * 1000)} ms`;
  if (a < 60) return `${Number(s.toFixed(a < 10 ? 2 : 1))} s`;
  // rounded before it is split: 119.6 s is '2 min', never '1 min 60 s'
  const sec = Math.round(a);
  if (sec < 3600) return `${Math.floor(sec / 60)} min${sec % 60 ? ` ${sec % 60} s` : ''}`;
  const min = Math.round(a / 60);
  return `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/**
 * A time spent, as people read it ({@link formatDuration}), with its unit when it is none: `0 s`
 * (the axis's bare `0` tick read as a count beside a run's figures).
 * @param s seconds.
 */
export function formatTimeSpent(s: number): string {
  const words = formatDuration(s);
  return words === '0' ? '0 s' : words;
}
