/**
 * The people's labels in the stop dataset (`otrace dataset stops` with a sidecar next to a trace):
 * each row keeps otrace's `labels` (now with `source: "otrace"`) and gets `human_labels` (`source:
 * "human"`), so a trainer can learn from either. A label lands on the row of the stop owner's first
 * decision point at or after the labelled event (the first point where the owner could act on it),
 * else on its last point. Fields are null when the trace has no label of their kind (unknown), never
 * false by default. Pure.
 */
import type { StopRow } from '../stop-dataset';
import type { TraceIndex } from '../trace-index';
import type { AttachedLabel } from './attach';
import type { LabelKind } from './sidecar';

/** One person's label as a dataset row carries it. */
export interface RowLabel {
  event: string;
  label: LabelKind;
  note?: string;
  finding?: { kind: string; mode?: string };
  author: string;
  time: string;
}

/** What people said, beside otrace's labels of the same row. */
export interface HumanStopLabels {
  source: 'human';
  /** True at the row a person marked "should have stopped here"; false at the others; null when nobody marked one in this trace. */
  best_stop: boolean | null;
  /** The run's stop as people judge it: `premature` (stopped too early), `delayed` (should have stopped earlier); null when nobody said. */
  stop_finding: 'premature' | 'delayed' | null;
  /** True at the row of a decisive error people marked; null when nobody marked one in this trace. */
  decisive_error: boolean | null;
  /** True at the row of a good step people marked; null when nobody marked one in this trace. */
  good_step: boolean | null;
  /** The labels that land on this row. */
  labels: RowLabel[];
}

/** A dataset row with otrace's labels marked as its own and the people's beside them. */
export type LabelledStopRow = Omit<StopRow, 'labels'> & { labels: StopRow['labels'] & { source: 'otrace' }; human_labels?: HumanStopLabels };

/**
 * Adds `labels.source` and, when `attached` is given (the trace has a sidecar), `human_labels` to
 * every row of one trace. @param rows that trace's rows (stopRows), in time order.
 */
export function withHumanLabels(rows: readonly StopRow[], index: TraceIndex, attached: readonly AttachedLabel[] | undefined): LabelledStopRow[] {
  const out: LabelledStopRow[] = rows.map((r) => ({ ...r, labels: { ...r.labels, source: 'otrace' as const } }));
  if (!attached) return out;
  const posOfRaw = new Map<number, number>();
  for (let p = 0; p < index.size; p++) posOfRaw.set(index.at(p), p);
  const has = new Set(attached.map((a) => a.record.label));
  const stopFinding = has.has('stopped_too_early') ? 'premature' : has.has('should_have_stopped') ? 'delayed' : null;
  const human = out.map<HumanStopLabels>(() => ({
    source: 'human',
    best_stop: has.has('should_have_stopped') ? false : null,
    stop_finding: stopFinding,
    decisive_error: has.has('decisive_error') ? false : null,
    good_step: has.has('good_step') ? false : null,
    labels: [],
  }));
  for (const a of attached) {
    const pos = posOfRaw.get(a.index);
    if (pos === undefined || out.length === 0) continue;
    let k = out.findIndex((r) => r.features.event_index >= pos);
    if (k === -1) k = out.length - 1;
    const h = human[k];
    const r = a.record;
    if (r.label === 'should_have_stopped') h.best_stop = true;
    if (r.label === 'decisive_error') h.decisive_error = true;
    if (r.label === 'good_step') h.good_step = true;
    h.labels.push({ event: r.event, label: r.label, ...(r.note !== undefined ? { note: r.note } : {}), ...(r.finding ? { finding: { kind: r.finding.kind, ...(r.finding.mode ? { mode: r.finding.mode } : {}) } } : {}), author: r.author, time: r.time });
  }
  out.forEach((row, k) => (row.human_labels = human[k]));
  return out;
}
