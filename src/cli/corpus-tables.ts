/**
 * The tables a corpus is read into, one row per thing, the same whatever writes them (`otrace dataset
 * stops|findings|events` as JSONL or Parquet, `otrace query` for DuckDB):
 * - `stops`: one row per decision point of the lane that owns the stop decision (src/analysis/stop-dataset.ts;
 *   in Parquet its `features` and `labels` are flattened into top-level columns of the same names);
 * - `findings`: one row per finding of the analysis (stop, loop, blame, best stop, verification);
 * - `events`: one row per event of the trace, in file order.
 * Every row starts with `trace`: the file, relative to the folder searched (the path given otherwise).
 * Column types are fixed here ({@link TABLES}), so that a table of no rows still has its schema.
 */
import { analyzeIndex, analyzeTrace, TraceIndex, type Analysis } from '../analysis';
import { stopRows } from '../analysis/stop-dataset';
import type { AttachedLabel } from '../analysis/labels/attach';
import { withHumanLabels, type LabelledStopRow } from '../analysis/labels/stop-labels';
import type { LoadedTrace } from '../trace/model';
import { severalTraces } from '../trace/trace-groups';

/** A Parquet column type (hyparquet-writer's basic types): `INT64` values are whole numbers, written as 64-bit integers. */
export type ColumnType = 'STRING' | 'INT64' | 'DOUBLE' | 'BOOLEAN';

/** One column of a table: its name, type, and its value in a row (null when absent). */
export interface TableColumn {
  name: string;
  type: ColumnType;
  value(row: Record<string, unknown>): string | number | boolean | null;
}

/** A finding as a row (src/analysis/types.ts `Finding`; `event` is its main event). */
export interface FindingRow {
  trace: string;
  kind: string;
  severity: string;
  /** Id of the main event, and its index in the file's events (0-based). */
  event: string | null;
  event_index: number | null;
  /** Line (1-based) of the main event's record, and the file it is in when that is not the trace file itself (a sub-agent file). */
  line: number | null;
  file: string | null;
  /** Events the finding concerns. */
  events: number;
  /** Stop findings: the failure mode (ok, premature, delayed, no_stop), what the stop ends, whether the task is recorded done. */
  mode: string | null;
  scope: string | null;
  sound: boolean | null;
  confidence: string | null;
  /** Tokens the finding says were spent for nothing. */
  tokens: number | null;
  inline: string;
  message: string;
}

/** An event as a row (src/trace/schema.ts; content is left out: it is in the trace file, at `line`). */
export interface EventRow {
  trace: string;
  /** Index in the file's events (0-based, file order). */
  index: number;
  id: string;
  type: string;
  agent: string;
  to: string | null;
  tool: string | null;
  /** Seconds since the trace's start (or the step, when the trace counts steps). */
  t: number;
  tokens: number | null;
  cost: number | null;
  /** Stop events: why. Reward events: the value. */
  reason: string | null;
  /** Stop events: what the trace says the stop ended (`turn`: a hand-back to the user, whose reason `task_complete` is no claim that the task was done; `run`, `phase`); null when it says nothing (the stops table has the analysis's scope of every stop). */
  scope: string | null;
  value: number | null;
  line: number | null;
  file: string | null;
}

/** The rows of one trace for each table. */
export interface TraceTables {
  stops: LabelledStopRow[];
  findings: FindingRow[];
  events: EventRow[];
}

/** Table names, in the order `otrace query` lists them. */
export type TableName = keyof TraceTables;
export const TABLE_NAMES: TableName[] = ['events', 'findings', 'stops'];

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? null : String(v));
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const bool = (v: unknown) => (typeof v === 'boolean' ? v : null);
const col = (name: string, type: ColumnType, get: (r: Record<string, unknown>) => unknown = (r) => r[name]): TableColumn => ({
  name,
  type,
  value: (r) => {
    const v = get(r);
    return type === 'STRING' ? str(v) : type === 'BOOLEAN' ? bool(v) : num(v);
  },
});
const feature = (name: string, type: ColumnType) => col(name, type, (r) => (r.features as Record<string, unknown>)[name]);
const label = (name: string, type: ColumnType) => col(name, type, (r) => (r.labels as Record<string, unknown>)[name]);
/** A field of the people's labels (`human_labels`, from a sidecar), as the column `human_<name>`; null without a sidecar. */
const human = (name: string, type: ColumnType) => col(`human_${name}`, type, (r) => (r.human_labels as Record<string, unknown> | undefined)?.[name]);

/** The columns of each table, in order (docs/analysis.md, "Corpora as tables"). */
export const TABLES: Record<TableName, TableColumn[]> = {
  stops: [
    col('trace', 'STRING'),
    col('owner', 'STRING'),
    col('event', 'STRING'),
    col('type', 'STRING'),
    feature('event_index', 'INT64'),
    feature('lane_index', 'INT64'),
    feature('elapsed', 'DOUBLE'),
    feature('elapsed_unit', 'STRING'),
    feature('tokens_so_far', 'DOUBLE'),
    feature('open_delegations', 'INT64'),
    feature('last_check', 'STRING'),
    feature('last_check_event', 'STRING'),
    feature('loop_state', 'STRING'),
    feature('loops_so_far', 'INT64'),
    label('stop', 'BOOLEAN'),
    label('best_stop', 'BOOLEAN'),
    label('outcome', 'STRING'),
    label('outcome_value', 'DOUBLE'),
    label('stop_finding', 'STRING'),
    label('v_stop', 'DOUBLE'),
    label('source', 'STRING'),
    human('best_stop', 'BOOLEAN'),
    human('stop_finding', 'STRING'),
    human('decisive_error', 'BOOLEAN'),
    human('good_step', 'BOOLEAN'),
  ],
  findings: [
    col('trace', 'STRING'),
    col('kind', 'STRING'),
    col('severity', 'STRING'),
    col('event', 'STRING'),
    col('event_index', 'INT64'),
    col('line', 'INT64'),
    col('file', 'STRING'),
    col('events', 'INT64'),
    col('mode', 'STRING'),
    col('scope', 'STRING'),
    col('sound', 'BOOLEAN'),
    col('confidence', 'STRING'),
    col('tokens', 'DOUBLE'),
    col('inline', 'STRING'),
    col('message', 'STRING'),
  ],
  events: [
    col('trace', 'STRING'),
    col('index', 'INT64'),
    col('id', 'STRING'),
    col('type', 'STRING'),
    col('agent', 'STRING'),
    col('to', 'STRING'),
    col('tool', 'STRING'),
    col('t', 'DOUBLE'),
    col('tokens', 'DOUBLE'),
    col('cost', 'DOUBLE'),
    col('reason', 'STRING'),
    col('scope', 'STRING'),
    col('value', 'DOUBLE'),
    col('line', 'INT64'),
    col('file', 'STRING'),
  ],
};

/** Line (1-based) and file (when another than the trace file) of event `i`'s record. */
function whereRead(loaded: LoadedTrace, i: number, file: string): { line: number | null; file: string | null } {
  const o = loaded.eventOrigins.get(i);
  if (!o) return { line: null, file: null };
  return { line: o.range.start.line + 1, file: o.file && o.file !== file ? o.file : null };
}

/** The findings of an analysis as rows. */
export function findingRows(loaded: LoadedTrace, a: Pick<Analysis, 'findings'>, name: string, file: string): FindingRow[] {
  return a.findings.map((f) => {
    const main = f.events.length ? f.events[0] : -1;
    const at = main >= 0 ? whereRead(loaded, main, file) : { line: null, file: null };
    return {
      trace: name,
      kind: f.kind,
      severity: f.severity,
      event: f.ids[0] ?? null,
      event_index: main >= 0 ? main : null,
      line: at.line,
      file: at.file,
      events: f.events.length,
      mode: f.mode ?? null,
      scope: f.scope ?? null,
      sound: f.sound ?? null,
      confidence: f.confidence ?? null,
      tokens: f.tokens ?? null,
      inline: f.inline,
      message: f.message,
    };
  });
}

/** The events of a trace as rows, in file order. */
export function eventRows(loaded: LoadedTrace, name: string, file: string): EventRow[] {
  return loaded.trace.events.map((e, i) => ({
    trace: name,
    index: i,
    id: e.id,
    type: e.type,
    agent: e.agent,
    to: e.to ?? null,
    tool: e.tool ?? null,
    t: e.t,
    tokens: e.tokens ?? null,
    cost: e.cost ?? null,
    reason: e.reason ?? null,
    scope: typeof e.scope === 'string' ? e.scope : null,
    value: e.value ?? null,
    ...whereRead(loaded, i, file),
  }));
}

/**
 * The rows of the tables asked for, from one analysis: the stop rows and the findings of a file
 * holding one trace come from one index and one analysis; a file of several traces (trace_id) gets
 * its findings trace by trace (as `otrace analyze` shows them).
 * @param outcome the run's outcome given by the caller (`--outcome`), else the trace's own.
 * @param labels the people's labels of the trace (its sidecar, attached), put in the stop rows' `human_labels`.
 */
export function traceTables(loaded: LoadedTrace, name: string, file: string, want: readonly TableName[], outcome?: 'failure' | 'success', labels?: readonly AttachedLabel[]): Partial<TraceTables> {
  const out: Partial<TraceTables> = {};
  if (want.includes('events')) out.events = eventRows(loaded, name, file);
  if (!want.includes('stops') && !want.includes('findings')) return out;
  const index = new TraceIndex(loaded);
  let a: Analysis;
  try {
    a = analyzeIndex(index, { outcome });
    if (want.includes('stops')) out.stops = withHumanLabels(stopRows(index, a, name), index, labels);
  } finally {
    index.free(); // its typed arrays' memory back at once (src/analysis/arena.ts)
  }
  if (want.includes('findings')) out.findings = findingRows(loaded, severalTraces(loaded) ? analyzeTrace(loaded, { outcome }) : a, name, file);
  return out;
}
