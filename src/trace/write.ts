/**
 * Writers: otrace JSON, otrace JSONL, and the survey's JSON (valid under its trace_schema.json).
 * Survey JSON -> otrace JSONL -> survey JSON gives the same JSON value.
 */
import { toChromeTraceJson } from './export-chrome';
import { canonicalType, SURVEY_EVENT_TYPES, type Trace, type TraceEvent } from './schema';

/** Output formats of `otrace convert`. */
export const OUTPUT_FORMATS = ['otrace-json', 'otrace-jsonl', 'survey-json', 'chrome-trace'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The trace as one pretty-printed JSON document, ending in a newline. */
export function toOtraceJson(trace: Trace): string {
  return JSON.stringify(trace, null, 2) + '\n';
}

/** The trace as JSONL: a line of trace fields (when there are any), one line per event, one per edge. */
export function toOtraceJsonl(trace: Trace): string {
  const { events, edges, ...header } = trace;
  const lines: string[] = [];
  if (Object.keys(header).length > 0) lines.push(JSON.stringify(header));
  for (const e of events) lines.push(JSON.stringify(e));
  for (const e of edges ?? []) lines.push(JSON.stringify({ edge: e }));
  return lines.join('\n') + '\n';
}

const SURVEY_TYPES = new Set<string>(SURVEY_EVENT_TYPES);

/**
 * The trace in the survey's shape. Events of types the survey lacks become the nearest survey type:
 * aliases their canonical type; `delegate`, `reward` and `stop` become `orchestrator_decision`
 * with `otrace_type` naming the original (events may carry extra properties there). Required trace
 * fields the trace lacks are derived: `rewards` from reward events (last value per channel),
 * `costs.tokens` from event tokens, `costs.wall_clock_s` from the time span. Trace fields the
 * survey does not define (e.g. `metadata`) are left out: its schema forbids them.
 */
export function toSurvey(trace: Trace): Record<string, unknown> {
  const events = trace.events.map(toSurveyEvent);
  const rewards: Record<string, number> = { ...(trace.rewards ?? {}) };
  if (!trace.rewards) {
    for (const e of trace.events) if (e.type === 'reward' && e.value !== undefined) rewards[e.channel ?? 'team'] = e.value;
  }
  const times = trace.events.map((e) => e.t);
  const costs: Record<string, number> = {
    tokens: trace.events.reduce((s, e) => s + (e.tokens ?? 0), 0),
    wall_clock_s: times.length ? Math.max(...times) - Math.min(...times) : 0,
  };
  for (const [k, v] of Object.entries(trace.costs ?? {})) if (typeof v === 'number') costs[k] = v;
  const out: Record<string, unknown> = {
    trace_id: trace.trace_id ?? 'unknown',
    task_id: trace.task_id ?? 'unknown',
  };
  if (trace.system !== undefined) out.system = trace.system;
  if (trace.topology !== undefined) out.topology = trace.topology;
  out.events = events;
  out.edges = (trace.edges ?? []).map(({ src, dst, type }) => ({ src, dst, type }));
  out.rewards = rewards;
  out.costs = costs;
  if (trace.metrics !== undefined) out.metrics = trace.metrics;
  return out;
}

function toSurveyEvent(event: TraceEvent): TraceEvent | Record<string, unknown> {
  if (SURVEY_TYPES.has(event.type)) return event;
  const canonical = canonicalType(event.type);
  const type = SURVEY_TYPES.has(canonical) ? canonical : 'orchestrator_decision';
  return { ...event, type, otrace_type: event.type };
}

/** The survey JSON text, pretty-printed. */
export function toSurveyJson(trace: Trace): string {
  return JSON.stringify(toSurvey(trace), null, 2) + '\n';
}

/** Serializes a trace in one of the {@link OUTPUT_FORMATS}. */
export function writeTrace(trace: Trace, format: OutputFormat): string {
  switch (format) {
    case 'otrace-json':
      return toOtraceJson(trace);
    case 'otrace-jsonl':
      return toOtraceJsonl(trace);
    case 'survey-json':
      return toSurveyJson(trace);
    case 'chrome-trace':
      return toChromeTraceJson(trace);
  }
}
