/**
 * The words that say a large file's first part is shown (issue #30, a file read in parts:
 * src/engine/session-input.ts), in the graph's header and the status bar alike: how much of the file
 * the part holds, and whether the rest is being read or the read stopped (cancelled, or failed).
 * Pure: no `vscode`, no DOM.
 */

/**
 * `2% of 218 MB shown, reading the rest…`, or `… shown, 55% read…` once the read of the rest says how
 * far it got (`read` bytes; `… all read…` at the end), or `… shown, read stopped`; the part shown is
 * `bytes` of the file's `of` bytes.
 */
export function partWords(part: { bytes: number; of: number; stopped?: true; read?: number }): string {
  return `${shareOf(part)}% of ${megabytes(part.of)} MB shown, ${restWords(part)}`;
}

/**
 * Where the read of a large file shown in part stands: `stopped` (cancelled or failed), `started`
 * (nothing said yet of the rest: `read` unset or not past the part), `going` (`read` bytes of it), or
 * `done` (read to its end: the whole trace comes next).
 */
export function readStage(part: { bytes: number; of: number; stopped?: true; read?: number }): 'stopped' | 'started' | 'going' | 'done' {
  if (part.stopped) return 'stopped';
  if (part.read === undefined || part.read <= part.bytes) return 'started';
  return part.read >= part.of ? 'done' : 'going';
}

/** How the read of the rest stands: `reading the rest…`, `55% read…`, `all read…` (the whole trace comes next), or `read stopped`. */
function restWords(part: { bytes: number; of: number; stopped?: true; read?: number }): string {
  const stage = readStage(part);
  if (stage === 'stopped') return 'read stopped';
  if (stage === 'started') return 'reading the rest…';
  return stage === 'done' ? 'all read…' : `${shareOf({ bytes: part.read!, of: part.of })}% read…`;
}

/** The part's share of the file, in whole percent (rounded down: 100 only once read to the end). */
export function shareOf(part: { bytes: number; of: number }): number {
  return Math.floor((100 * part.bytes) / Math.max(1, part.of));
}

/** Bytes in whole MiB, as people read them: `1,024`. */
export function megabytes(bytes: number): string {
  return Math.round(bytes / (1 << 20)).toLocaleString('en-US');
}
