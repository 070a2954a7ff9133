/** Summary figures of a loaded trace, for `otrace stats` and the status bar. */
import type { LoadedTrace } from './model';
import { canonicalType } from './schema';
import { severalTraces, subTrace } from './trace-groups';
import { addTo } from './counts';
import { tokenTotals, type TokenTotals } from './tokens';
import { timeUnitOf, type TimeUnit } from './units';

/** What `otrace stats --json` prints. Times in seconds (steps when `time_unit` is `steps`), tokens as counted by the trace. */
export interface TraceStats {
  format: string;
  /** What `t` counts: seconds, or steps when the trace records no clock (Who&When, MAST AG2). */
  time_unit: TimeUnit;
  events: number;
  edges: number;
  /** Agent (lane) names in order of first appearance. */
  agents: string[];
  /** Event type as written -> count. */
  by_type: Record<string, number>;
  stops: { id: string; reason: string; agent: string; t: number }[];
  tool_calls: number;
  messages: number;
  time: { start: number; end: number; span_s: number } | null;
  /** Trace-level costs as recorded, plus `event_tokens`, the sum of the events' own tokens (a model call's: its output). */
  costs: Record<string, number>;
  /** Tokens of the model calls by kind, each call once (events' `usage`); `calls` 0 when no call recorded kinds. */
  tokens: TokenTotals;
  problems: { errors: number; warnings: number };
  /** Files holding several traces only: each trace's figures (agents, stops, time per trace). */
  traces?: (Omit<TraceStats, 'traces' | 'problems' | 'format' | 'time_unit'> & { trace_id: string })[];
}

/** Computes {@link TraceStats} in one pass over the events (and one more per trace when the file holds several). */
export function traceStats(loaded: LoadedTrace): TraceStats {
  const all = fileStats(loaded);
  const groups = severalTraces(loaded);
  if (!groups) return all;
  const traces = groups.map((g) => {
    const { format: _f, problems: _p, time_unit: _u, ...own } = fileStats(subTrace(loaded, g));
    return { trace_id: g.id, ...own };
  });
  return { ...all, traces };
}

function fileStats(loaded: LoadedTrace): TraceStats {
  const { trace } = loaded;
  const agents = new Set<string>();
  const byType: Record<string, number> = {};
  const stops: TraceStats['stops'] = [];
  let toolCalls = 0;
  let messages = 0;
  let tokens = 0;
  let start = Infinity;
  let end = -Infinity;
  for (const e of trace.events) {
    agents.add(e.agent);
    addTo(byType, e.type);
    const type = canonicalType(e.type);
    if (type === 'tool_call') toolCalls++;
    if (type === 'message') messages++;
    if (type === 'stop') stops.push({ id: e.id, reason: e.reason ?? 'unknown', agent: e.agent, t: e.t });
    tokens += e.tokens ?? 0;
    start = Math.min(start, e.t);
    end = Math.max(end, e.t + (e.duration_s ?? 0));
  }
  const costs: Record<string, number> = {};
  for (const [k, v] of Object.entries(trace.costs ?? {})) if (typeof v === 'number') costs[k] = v;
  costs.event_tokens = tokens;
  return {
    format: loaded.format,
    time_unit: timeUnitOf(loaded),
    events: trace.events.length,
    edges: trace.edges.length,
    agents: [...agents],
    by_type: byType,
    stops,
    tool_calls: toolCalls,
    messages,
    time: trace.events.length ? { start, end, span_s: end - start } : null,
    costs,
    tokens: tokenTotals(trace.events),
    problems: {
      errors: loaded.problems.filter((p) => p.severity === 'error').length,
      warnings: loaded.problems.filter((p) => p.severity === 'warning').length,
    },
  };
}
