/**
 * What comparing two runs gives (issue 28; `otrace diff A B --json` prints a {@link RunComparison}).
 * Events are named by id (ids may repeat in real files) and by index in their trace's
 * `loaded.trace.events` (`*_index`: unique; what a graph draws by). Times are seconds, or steps when
 * a run records no clock (`time_unit`); tokens as the trace counts them, by kind.
 */
import type { TokenKind } from '../../trace/tokens';
import type { TimeUnit } from '../../trace/units';
import type { Finding } from '../types';
import type { RunSummary, SummaryEnd } from '../run-summary';
import type { PairedBy } from './pairing';

/** How an event of one run relates to the other: only in A, only in B, changed (the same step, other content), moved (the same step, elsewhere in its lane). */
export type DifferenceKind = 'only_in_a' | 'only_in_b' | 'changed' | 'moved';

/** One difference between the runs. */
export interface Difference {
  kind: DifferenceKind;
  /** The event in A (null for `only_in_b`). */
  a: string | null;
  b: string | null;
  a_index: number | null;
  b_index: number | null;
  /** Index in {@link RunComparison.agents} of the agent pair the event belongs to. */
  agents: number;
  /**
   * Where it is in run order: the rank of its A event in A's time order (0 = A's first event), or,
   * for an event only in B, the rank of the last A event aligned before it + 0.5 (-0.5: before any);
   * for a moved event the earlier of its two places.
   */
  at: number;
}

/** What one agent (lane) did in one run. */
export interface LaneStats {
  events: number;
  tool_calls: number;
  /** Tool results that failed (`is_error`, an exit code other than 0) and calls the user refused. */
  failed_calls: number;
  /** Tokens of its model calls by kind; null for a kind none recorded. */
  tokens: Record<TokenKind, number | null>;
  /** From its first event's start to its last event's end (seconds, or steps: `time_unit`). */
  time: number;
}

/** B − A per figure (null where neither run records it, or where their time units differ). */
export interface LaneDeltas {
  events: number;
  tool_calls: number;
  failed_calls: number;
  tokens: Record<TokenKind, number | null>;
  time: number | null;
}

/** An agent of A paired with an agent of B (or one agent of one run only), and how their lanes align. */
export interface AgentComparison {
  a: string | null;
  b: string | null;
  /** How they were paired (pairing.ts); null for an agent of one run only. */
  paired_by: PairedBy | null;
  a_stats: LaneStats | null;
  b_stats: LaneStats | null;
  deltas: LaneDeltas;
  /** Events of A and B that are the same step, as pairs of event indexes, in lane order. */
  aligned: [number, number][];
  /** Counts of this pair's differences. */
  only_in_a: number;
  only_in_b: number;
  changed: number;
  moved: number;
}

/** A finding of one run with no finding of the same kind on the aligned events of the other. */
export interface FindingOnOneSide {
  kind: Finding['kind'];
  severity: Finding['severity'];
  message: string;
  /** Its main event: id and index. */
  event: string;
  index: number;
  /** Stop findings: the verdict (`ok` only for a sound stop). */
  mode?: Finding['mode'];
}

/** One run as the comparison shows it. */
export interface RunSide {
  format: string;
  events: number;
  time_unit: TimeUnit;
  task: string;
  /** How it ended: its last stop (run-summary.ts). */
  ended: SummaryEnd | null;
  /** The outcome it records; null when none. */
  outcome: RunSummary['outcome'];
}

/** The comparison of two runs (see the module comment). */
export interface RunComparison {
  a: RunSide;
  b: RunSide;
  /** The first difference in run order (A's time order, B's events placed after the A event they follow); null when the runs do the same steps. */
  first_divergence: Difference | null;
  agents: AgentComparison[];
  /** Ids of the events only in A, in A's time order. */
  only_in_a: string[];
  only_in_b: string[];
  /** Pairs of ids [A, B]: the same step with other content. */
  changed: [string, string][];
  /** Pairs of ids [A, B]: the same step at another place in its lane. */
  moved: [string, string][];
  /** Every difference, in run order (the first is {@link first_divergence}): what next/previous difference steps through. */
  differences: Difference[];
  /** Events that are the same step in both runs. */
  same: number;
  /** Findings of one run only (sound stops and problems; plain turn ends and hindsight best stops left out). */
  findings: { only_in_a: FindingOnOneSide[]; only_in_b: FindingOnOneSide[] };
}
