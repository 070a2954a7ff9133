/**
 * The decoration model as the extension host receives it: one combined mark per event at the START
 * of the event's range, with its category (colour, gutter icon) and text, and the ranges of loop
 * members; computed per file in the engine's worker (src/engine/marks.ts). Here: the types and the
 * visible-lines lookup. Pure (no `vscode`, no analysis).
 */
import type { Position, Range } from '../trace/model';

/** Categories, most important first; each has its own decoration type (colour, gutter icon). */
export const MARK_CATEGORIES = ['blame', 'blameWarning', 'stopProblem', 'loop', 'stop', 'bestStop', 'creditPositiveStrong', 'creditPositive', 'creditNegativeStrong', 'creditNegative'] as const;
export type MarkCategory = (typeof MARK_CATEGORIES)[number];

/** One event's combined inline mark. */
export interface EventMark {
  /** Index of the event in the trace. */
  index: number;
  /** Where the mark goes: the start of the event's range. */
  at: Position;
  category: MarkCategory;
  /** The inline text, e.g. `■ task complete · premature`, `■ turn ended (handed back)`, `loop ×3 · +0.12`. */
  text: string;
}

/** One record's readable label (src/engine/record-labels.ts): where it goes and its text. */
export interface RecordLabel {
  /** Index of the record's first event. */
  index: number;
  /** The start of the record's range. */
  at: Position;
  /** e.g. `Bash: npm test ✗ exit 2` (trace content made safe: one line, controls visible, clipped). */
  text: string;
}

/** What to show (the `otrace.decorations.*` settings). */
export interface MarkOptions {
  stops: boolean;
  credit: boolean;
  loops: boolean;
}

/** Marks and loop highlights of one file of a session, sorted by position. */
export interface FileMarks {
  marks: EventMark[];
  /** Ranges of loop members (highlighted, and marked in the overview ruler). */
  loopRanges: Range[];
}

/** The marks whose line lies in one of `lines` (inclusive, 0-based), by binary search on the sorted marks. */
export function marksInLines<T extends { at: Position }>(marks: readonly T[], lines: readonly { start: number; end: number }[]): T[] {
  const out: T[] = [];
  for (const { start, end } of lines) {
    let lo = 0;
    let hi = marks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid].at.line < start) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < marks.length && marks[k].at.line <= end; k++) out.push(marks[k]);
  }
  return out;
}
