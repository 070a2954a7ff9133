/**
 * Two runs compared in VS Code (issue 28): what the engine answers for a comparison (a
 * {@link CompareModel}, built in src/engine/compare-view.ts from src/analysis/compare's
 * `RunComparison`), and the messages between the compare panel's host side (src/host/compare/) and
 * its webview (webview/compare/). Types only; no `vscode`, no DOM. Every string that comes from a
 * trace or a file name is untrusted: the webview sets it as text, the host escapes it.
 */

/** How an event of one run relates to the other (src/analysis/compare/types.ts). */
export type DifferenceKind = 'only_in_a' | 'only_in_b' | 'changed' | 'moved';

/** A range in a text file (0-based lines and characters, end exclusive). */
export interface Range {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

/** One run as the panel's header shows it, in words (plain text). */
export interface CompareSide {
  format: string;
  events: number;
  /** `seconds`, or `steps` for a run without a clock. */
  timeUnit: 'seconds' | 'steps';
  /** The task it was given (first words), or `''`. */
  task: string;
  /** How it ended: `turn ended (handed back): …`, `no stop at its end: …`. */
  ended: string;
  /** The outcome it records (`success (…)`), or `not recorded`. */
  outcome: string;
}

/** What one agent did in one run (src/analysis/compare LaneStats): tokens by kind (null: none recorded), time in seconds or steps. */
export interface LaneFigures {
  events: number;
  tool_calls: number;
  failed_calls: number;
  tokens: Record<string, number | null>;
  time: number;
}

/** B − A per figure (time null when the runs' time units differ). */
export interface LaneFigureDeltas {
  events: number;
  tool_calls: number;
  failed_calls: number;
  tokens: Record<string, number | null>;
  time: number | null;
}

/** Where an event's record is: its file in the session (`''`: the trace file, else a sub-agent file's origin name) and its range (0-based). */
export interface ComparePlace {
  file: string;
  range: Range;
}

/** How a column of a lane pair relates the runs: the same step on both sides, or one of the differences. */
export type ColumnKind = 'same' | DifferenceKind;

/**
 * One column of a lane pair: an event of A above an event of B (the same step, or the same step
 * changed), or an event of one run with nothing across (only in A, only in B, or moved: its
 * partner is in another column).
 */
export interface CompareColumn {
  kind: ColumnKind;
  /** Event index in A's trace (absent: nothing of A in this column). */
  a?: number;
  b?: number;
  /** Short one-line labels of the events (plain text, controls shown). */
  la?: string;
  lb?: string;
  /** Index in {@link CompareModel.differences} of the difference this column shows. */
  diff?: number;
}

/** A pair of lanes: an agent of A and its partner in B (or an agent of one run only), with its figures and columns. */
export interface CompareLanes {
  a: string | null;
  b: string | null;
  /** How the agents were paired (`name`, `kind`, `task`, …); null for an agent of one run only. */
  pairedBy: string | null;
  aStats: LaneFigures | null;
  bStats: LaneFigures | null;
  deltas: LaneFigureDeltas;
  /** Counts of the pair's differences. */
  counts: { same: number; only_in_a: number; only_in_b: number; changed: number; moved: number };
  /** The columns sent: a window of the pair's columns when all pairs together have more than {@link MAX_COLUMNS}. */
  columns: CompareColumn[];
  /** Columns of the pair before the window sent. */
  columnsBefore: number;
  /** Columns not sent, before and after the window. */
  columnsLeftOut: number;
}

/** One difference as the panel steps through it and the trace texts mark it. */
export interface CompareDifference {
  kind: DifferenceKind;
  /** Event indexes (null: nothing on that side). */
  a: number | null;
  b: number | null;
  /** The lane pair (index in {@link CompareModel.lanes}) and the column it is drawn in (-1: not drawn). */
  lanes: number;
  column: number;
  /** Where each side's record is (absent: no event, or an event with no origin). */
  placeA?: ComparePlace;
  placeB?: ComparePlace;
  /** Each side's event in a few words (plain text). */
  wordsA?: string;
  wordsB?: string;
}

/** A comparison as the compare panel and the trace texts show it. */
export interface CompareModel {
  a: CompareSide;
  b: CompareSide;
  lanes: CompareLanes[];
  /** Every difference in run order (the first is the first divergence); at most {@link MAX_DIFFERENCES}. */
  differences: CompareDifference[];
  /** Differences not sent (past {@link MAX_DIFFERENCES}). */
  differencesLeftOut: number;
  /** Totals over the whole comparison. */
  counts: { same: number; only_in_a: number; only_in_b: number; changed: number; moved: number };
  /** Findings of one run only, in words. */
  findings: { a: string[]; b: string[] };
}

/** Most columns sent over all lane pairs (a larger comparison is drawn in part and says how much is left out). */
export const MAX_COLUMNS = 20_000;
/** Most differences sent (stepped through and decorated). */
export const MAX_DIFFERENCES = 20_000;

/** What the compare panel's webview is told. */
export type CompareHostMessage =
  | { type: 'model'; model: CompareModel; files: { a: string; b: string } }
  | { type: 'error'; message: string }
  /** Select a difference (its index), or a column of a lane pair with no difference (`diff` -1). */
  | { type: 'select'; diff: number; lanes: number; column: number; details: { a?: EventDetails; b?: EventDetails } };

/** One event as the details pane shows it (plain text). */
export interface EventDetails {
  index: number;
  id: string;
  type: string;
  agent: string;
  /** `file:line` of its record. */
  where: string;
  /** Start of its content (at most a few hundred characters). */
  content: string;
  t: string;
}

/** What the compare panel's webview sends. */
export type CompareWebviewMessage =
  | { type: 'ready' }
  /** The user picked a column (click, keys), or asked for the next or previous difference. */
  | { type: 'pick'; lanes: number; column: number }
  | { type: 'step'; direction: 1 | -1 };
