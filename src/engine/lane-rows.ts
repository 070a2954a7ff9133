/**
 * Rows inside a lane (a waterfall): what nests inside one agent's lane gets a row of its own, so a
 * one-agent session reads as turns -> model calls -> tool calls instead of one crowded line.
 * Derived from the trace model, never from one format:
 * - turn level: the prompts a lane is given (a user's or harness's message, a message from another
 *   agent, a human intervention) and its stops (turn ends, the run's end);
 * - call level: what the agent itself says or decides (messages, model calls, spawns, delegations,
 *   returns, decisions, ...);
 * - tool level: tool calls (a call and its result are one bar: the result takes the call's row)
 *   and results without a call;
 * - deeper: an event whose `parent` is an event of the same lane whose span holds it (an OTel-like
 *   span nesting: a tool call inside a tool call, a model call inside an agent step) is one level
 *   below its parent.
 * A lane keeps only the levels it uses, in this order (a lane of messages only is one row: a flat
 * log such as Who&When stays flat); its stops take its top row. Levels beyond {@link MAX_ROWS}
 * fold into the last row. One pass over the events plus the parent chains (each at most
 * {@link MAX_LEVEL} deep), typed arrays only: no object per event.
 */
import { appendColumn, copyColumn } from '../shared/append-column';
import { canonicalType, type TraceEvent } from '../trace/schema';
import { KIND, kindColumn } from './kind-column';
import type { IdTable } from '../trace/id-table';

/** Rows a lane has at most: deeper nesting folds into the last. */
export const MAX_ROWS = 4;
/** Nesting levels followed at most (a parent chain longer than this is cut). */
const MAX_LEVEL = 7;
/** The turn level: prompts the lane is given, and its stops. */
const TURN = 0;
/** The call level: what the agent says and decides. */
const CALL = 1;
/** The tool level: tool calls and results. */
const TOOL = 2;
/** Set on an event's level while its parent chain is being followed (a cycle guard). */
const PENDING = 255;
/** Senders whose message is a prompt the lane is given (besides another agent). */
const PROMPT_SENDERS = new Set(['user', 'human', 'harness', 'system', 'developer']);

/** What {@link laneRows} needs of the layout being built. */
export interface RowInput {
  events: readonly TraceEvent[];
  /** Per event: its lane. */
  lane: Int32Array;
  laneCount: number;
  /** Per event: the index of its result when it is a tool call drawn as a bar, else -1. */
  end: Int32Array;
  /** Per event: the call whose bar it is drawn in (a tool result), else -1. */
  barOf: Int32Array;
  /** Each id's first event index. */
  firstIndex: IdTable;
}

/** Per event its row inside its lane (0 = the lane's top row), per lane its row count (at least 1). */
export interface LaneRows {
  row: Uint8Array;
  rows: Uint8Array;
  /** What {@link extendLaneRows} continues from: per event its level and whether it is a stop, per lane the levels it uses (a bit each). */
  state: LaneRowsState;
}

/** What the rows of a trace were made from, kept to take in appended events ({@link extendLaneRows}). */
export interface LaneRowsState {
  /** Per event: its nesting level (not computed for stops and results drawn in a bar unless a parent chain reached them). */
  level: Uint8Array;
  /** Per event: 1 for a stop. */
  isStop: Uint8Array;
  /** Per lane: the levels its events use, a bit each (stops and results in bars apart). */
  used: Uint16Array;
}

/**
 * The row of every event inside its lane and each lane's row count (see the module comment).
 * O(n + the parent chains followed) for n events.
 */
export function laneRows(input: RowInput): LaneRows {
  const { events, lane, laneCount, barOf } = input;
  const n = events.length;
  const level = new Uint8Array(n).fill(PENDING - 1); // PENDING - 1: not computed yet
  const isStop = new Uint8Array(n);
  const kinds = kindColumn(events);
  for (let i = 0; i < n; i++) if (kinds[i] === KIND.stop) isStop[i] = 1;
  for (let i = 0; i < n; i++) if (!isStop[i] && barOf[i] < 0) levelOf(input, level, i, 0, kinds);
  // The levels each lane uses (a bit each), stops apart: they take the lane's top row.
  const used = new Uint16Array(laneCount);
  for (let i = 0; i < n; i++) if (!isStop[i] && barOf[i] < 0 && lane[i] < laneCount) used[lane[i]] |= 1 << level[i];
  const { rowOfLevel, rows } = rowsOfUsed(used, laneCount);
  const row = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const l = lane[i];
    if (l >= laneCount || isStop[i]) continue; // a stop: the top row (0)
    const own = barOf[i] >= 0 ? barOf[i] : i;
    row[i] = rowOfLevel[l * (MAX_LEVEL + 1) + level[own]];
  }
  return { row, rows, state: { level, isStop, used } };
}

/** Per lane, level -> row (the levels used, in order, the last row holding the deeper ones) and its row count. */
function rowsOfUsed(used: Uint16Array, laneCount: number): { rowOfLevel: Uint8Array; rows: Uint8Array } {
  const rowOfLevel = new Uint8Array(laneCount * (MAX_LEVEL + 1));
  const rows = new Uint8Array(laneCount).fill(1);
  for (let l = 0; l < laneCount; l++) {
    let row = 0;
    for (let v = 0; v <= MAX_LEVEL; v++) {
      rowOfLevel[l * (MAX_LEVEL + 1) + v] = Math.min(row, MAX_ROWS - 1);
      if (used[l] & (1 << v)) row++;
    }
    rows[l] = Math.max(1, Math.min(row, MAX_ROWS));
  }
  return { rowOfLevel, rows };
}

/**
 * The rows of a trace whose events from `from` on were appended to those `prev` was made from
 * (same lanes; the old events' parents, pairs and spans unchanged): equal to {@link laneRows} of
 * the whole input. The new events' levels follow their parent chains into the old ones; a lane
 * that now uses another level has its old events' rows made again (O(n) then), else the old rows
 * are copied. @param prevRow the old events' rows. `prev` is not changed.
 */
export function extendLaneRows(input: RowInput, prev: LaneRowsState, prevRow: Uint8Array, from: number): LaneRows {
  const { events, lane, laneCount, barOf } = input;
  const n = events.length;
  // the old events' levels, stop flags and (while no lane's levels changed) rows are not written again: the new
  // columns are longer views of the old ones' memory when they can be (src/shared/append-column.ts: 3 MB of new
  // memory per append at 1M events, external memory that brought the collector's full collections sooner)
  const level = appendColumn(prev.level.subarray(0, from), n).fill(PENDING - 1, from);
  const isStop = appendColumn(prev.isStop.subarray(0, from), n);
  for (let i = from; i < n; i++) if (canonicalType(events[i].type) === 'stop') isStop[i] = 1;
  for (let i = from; i < n; i++) if (!isStop[i] && barOf[i] < 0) levelOf(input, level, i, 0);
  const used = prev.used.slice();
  for (let i = from; i < n; i++) if (!isStop[i] && barOf[i] < 0 && lane[i] < laneCount) used[lane[i]] |= 1 << level[i];
  const { rowOfLevel, rows } = rowsOfUsed(used, laneCount);
  let changed = false;
  for (let l = 0; l < laneCount; l++) if (used[l] !== prev.used[l]) changed = true;
  const row = changed ? copyColumn(prevRow.subarray(0, from), n) : appendColumn(prevRow.subarray(0, from), n);
  const rowOf = (i: number) => {
    const l = lane[i];
    if (l >= laneCount || isStop[i]) return 0;
    const own = barOf[i] >= 0 ? barOf[i] : i;
    return rowOfLevel[l * (MAX_LEVEL + 1) + level[own]];
  };
  if (changed) for (let i = 0; i < from; i++) if (used[lane[i]] !== prev.used[lane[i]]) row[i] = rowOf(i);
  for (let i = from; i < n; i++) row[i] = rowOf(i);
  return { row, rows, state: { level, isStop, used } };
}

/** Whether event i names as its `parent` an event that could hold it (the parent's span decides): that parent's index (a call's bar for a result drawn in one), else -1. */
export function namedParent(input: Pick<RowInput, 'events' | 'lane' | 'barOf' | 'firstIndex'>, i: number): number {
  const e = input.events[i];
  if (e.parent === undefined) return -1;
  let p = input.firstIndex.get(e.parent);
  if (p === undefined) return -1;
  if (input.barOf[p] >= 0) p = input.barOf[p];
  return p === i || input.lane[p] !== input.lane[i] ? -1 : p;
}

/** Parent links followed at most from one event (a longer chain is cut: its top is taken as unnested). */
const MAX_CHAIN = 64;

/** The level of event i (computed once, following its parent chain first); `depth`: links followed so far. */
function levelOf(input: RowInput, level: Uint8Array, i: number, depth: number, kinds?: Uint8Array): number {
  if (level[i] < PENDING - 1) return level[i];
  if (level[i] === PENDING) return CALL; // a cycle of parents: stop following it
  const base = kinds ? levelOfKind(input.events[i], kinds[i]) : kindLevel(input.events[i]);
  if (depth >= MAX_CHAIN) return base;
  level[i] = PENDING;
  const p = enclosingParent(input, i);
  const v = p < 0 ? base : Math.max(base, Math.min(MAX_LEVEL, levelOf(input, level, p, depth + 1, kinds) + 1));
  level[i] = v;
  return v;
}

/** The level an event's kind gives it (see the module comment). */
function kindLevel(e: TraceEvent): number {
  const kind = canonicalType(e.type);
  if (kind === 'tool_call' || kind === 'tool_result') return TOOL;
  if (kind === 'human_intervention' || kind === 'stop') return TURN;
  if (kind === 'message' && isPrompt(e)) return TURN;
  return CALL;
}

/** {@link kindLevel} of an event whose canonical type's code (src/engine/kind-column.ts) is `code`. */
function levelOfKind(e: TraceEvent, code: number): number {
  if (code === KIND.tool_call || code === KIND.tool_result) return TOOL;
  if (code === KIND.human_intervention || code === KIND.stop) return TURN;
  if (code === KIND.message && isPrompt(e)) return TURN;
  return CALL;
}

/** A message the lane is given: from a user, a harness or another agent (not the lane's own output). */
function isPrompt(e: TraceEvent): boolean {
  const from = e.from ?? (typeof e.role === 'string' && PROMPT_SENDERS.has(e.role.toLowerCase()) ? e.role : undefined);
  if (from === undefined) return false;
  return from !== e.agent || PROMPT_SENDERS.has(from.toLowerCase());
}

/**
 * The event of the same lane that holds event i: its `parent` (the call's bar for a parent that
 * is a result drawn in one), when that parent is a span (it lasts: a duration or a paired result)
 * whose end is not before i starts (a child starting before its parent is clock skew, still
 * nested), or a stand-in for a missing parent span. -1 when none.
 */
function enclosingParent(input: RowInput, i: number): number {
  const { events, lane, end, barOf, firstIndex } = input;
  const e = events[i];
  if (e.parent === undefined) return -1;
  let p = firstIndex.get(e.parent);
  if (p === undefined) return -1;
  if (barOf[p] >= 0) p = barOf[p];
  if (p === i || lane[p] !== lane[i]) return -1;
  const parent = events[p];
  if (parent.kind === 'missing_parent') return p;
  const until = Math.max(parent.t + (parent.duration_s ?? 0), end[p] >= 0 ? events[end[p]].t : parent.t);
  return until > parent.t && e.t <= until ? p : -1;
}
