/**
 * The words that say a large file's first part is shown (issue #30, a file read in parts:
 * src/engine/session-input.ts), in the graph's header and the status bar alike: how much of the file
 * the part holds, and whether the rest is being read or the read stopped (cancelled, or failed).
 * Pure: no `vscode`, no DOM.
 */

/** `2% of 218 MB shown, reading the rest…`, or `… shown, read stopped`; `bytes` of the file's `of` bytes. */
export function partWords(part: { bytes: number; of: number; stopped?: true }): string {
  const share = Math.floor((100 * part.bytes) / Math.max(1, part.of));
  const size = Math.round(part.of / (1 << 20)).toLocaleString('en-US');
  return `${share}% of ${size} MB shown, ${part.stopped ? 'read stopped' : 'reading the rest…'}`;
}
