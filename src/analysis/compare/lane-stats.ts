/**
 * What an agent did in one run, and what changed from one run to the other (issue 28): events,
 * tool calls, failed calls, tokens by kind, time. Pure; linear in the lane.
 */
import { canonicalType, type TraceEvent } from '../../trace/schema';
import { TOKEN_KINDS, tokenTotals, type TokenKind } from '../../trace/tokens';
import type { TimeUnit } from '../../trace/units';
import { recordsFailure } from '../../shared/recorded-failure';
import type { LaneDeltas, LaneStats } from './types';

/**
 * The figures of one lane.
 * @param events the run's events (`loaded.trace.events`); `indexes` the lane's, any order.
 */
export function laneStats(events: readonly TraceEvent[], indexes: ArrayLike<number>): LaneStats {
  let toolCalls = 0;
  let failed = 0;
  let start = Infinity;
  let end = -Infinity;
  const lane: TraceEvent[] = [];
  for (let k = 0; k < indexes.length; k++) {
    const e = events[indexes[k]];
    lane.push(e);
    const type = canonicalType(e.type);
    if (type === 'tool_call') {
      toolCalls++;
      if (e.call_status === 'denied') failed++;
    } else if (type === 'tool_result' && recordsFailure(e)) failed++;
    if (Number.isFinite(e.t)) {
      start = Math.min(start, e.t);
      end = Math.max(end, e.t + (typeof e.duration_s === 'number' && Number.isFinite(e.duration_s) ? e.duration_s : 0));
    }
  }
  const byKind = tokenTotals(lane).by_kind;
  const tokens = {} as Record<TokenKind, number | null>;
  for (const k of TOKEN_KINDS) tokens[k] = byKind[k] ?? null;
  return { events: lane.length, tool_calls: toolCalls, failed_calls: failed, tokens, time: end >= start ? round(end - start) : 0 };
}

/** B − A for every figure; a lane of one run only counts as zeros on the other side (its tokens as none recorded). */
export function laneDeltas(a: LaneStats | null, b: LaneStats | null, units: { a: TimeUnit; b: TimeUnit }): LaneDeltas {
  const tokens = {} as Record<TokenKind, number | null>;
  for (const k of TOKEN_KINDS) {
    const x = a?.tokens[k] ?? null;
    const y = b?.tokens[k] ?? null;
    tokens[k] = x === null && y === null ? null : (y ?? 0) - (x ?? 0);
  }
  return {
    events: (b?.events ?? 0) - (a?.events ?? 0),
    tool_calls: (b?.tool_calls ?? 0) - (a?.tool_calls ?? 0),
    failed_calls: (b?.failed_calls ?? 0) - (a?.failed_calls ?? 0),
    tokens,
    time: units.a !== units.b ? null : round((b?.time ?? 0) - (a?.time ?? 0)),
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
