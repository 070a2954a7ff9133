/**
 * Export to the Chrome Trace Event format (the JSON Object Format: `{traceEvents: [...]}`), which
 * chrome://tracing, Perfetto (ui.perfetto.dev) and speedscope open. Reference: "Trace Event Format"
 * (Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
 *
 * Mapping: one process (pid 1, named after the trace) with one thread per agent lane (tid 1.. in
 * order of the lane's first event), named by `thread_name` metadata events (ph 'M') and ordered by
 * `thread_sort_index`. An event with `duration_s` > 0 becomes a complete event (ph 'X', `dur`),
 * any other an instant event (ph 'i', scope 't'). Complete events on one thread must nest (Perfetto
 * drops slices that overlap without nesting), so a slice that overlaps its lane's open slices without
 * fitting inside them (parallel tool calls, concurrent delegations) goes to an overflow thread of the
 * same lane, named `<agent> (2)`, `(3)`, ... (tids after the lanes' own). `ts`/`dur` are microseconds (event `t` and
 * `duration_s` are seconds). `name` is the type plus the tool or the receiving agent; `cat` is the
 * event type; `args` carries the event's other fields (content cut to `maxContent` characters).
 */
import type { Trace, TraceEvent } from './schema';

/** One Chrome trace event (the fields this exporter writes). */
export interface ChromeTraceEvent {
  name: string;
  ph: 'X' | 'i' | 'M';
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  cat?: string;
  s?: 't';
  args?: Record<string, unknown>;
}

/** Options of {@link toChromeTrace}. */
export interface ChromeTraceOptions {
  /** Longest `content` kept in args, in characters (default 2000; longer text is cut and marked). */
  maxContent?: number;
}

/** Microseconds from seconds, rounded to 0.001 µs so that float noise does not show. */
function micros(seconds: number): number {
  return Math.round(seconds * 1e9) / 1e3;
}

/** The display name of an event: its type, and what it acts on. */
function eventName(e: TraceEvent): string {
  if (e.tool) return `${e.type} ${e.tool}`;
  if (e.type === 'stop') return `stop (${e.reason ?? 'unknown'})`;
  if (e.to) return `${e.type} → ${e.to}`;
  return e.type;
}

/**
 * The trace as a Chrome Trace Event JSON object.
 * @returns `{traceEvents, displayTimeUnit: 'ms', otherData}`; metadata events first, then events in trace order.
 */
export function toChromeTrace(trace: Trace, options: ChromeTraceOptions = {}): { traceEvents: ChromeTraceEvent[]; displayTimeUnit: 'ms'; otherData: Record<string, unknown> } {
  const maxContent = options.maxContent ?? 2000;
  const pid = 1;
  const lanes = new Map<string, number>();
  for (const e of trace.events) if (!lanes.has(e.agent)) lanes.set(e.agent, lanes.size + 1);
  const traceEvents: ChromeTraceEvent[] = [
    { name: 'process_name', ph: 'M', pid, tid: 0, args: { name: trace.trace_id ?? trace.system ?? 'otrace' } },
  ];
  for (const [agent, tid] of lanes) {
    traceEvents.push({ name: 'thread_name', ph: 'M', pid, tid, args: { name: agent } });
    traceEvents.push({ name: 'thread_sort_index', ph: 'M', pid, tid, args: { sort_index: tid * 100 } });
  }
  // Per lane, tracks of open slices (end times, innermost last); track 0 is the lane's own thread.
  const tracks = new Map<string, { tid: number; open: number[] }[]>();
  const overflow: { agent: string; tid: number; n: number }[] = [];
  const place = (agent: string, start: number, end: number): number => {
    let lane = tracks.get(agent);
    if (!lane) tracks.set(agent, (lane = [{ tid: lanes.get(agent)!, open: [] }]));
    for (const track of lane) {
      while (track.open.length && track.open[track.open.length - 1] <= start) track.open.pop();
      const top = track.open[track.open.length - 1];
      if (top === undefined || end <= top) {
        track.open.push(end);
        return track.tid;
      }
    }
    const tid = lanes.size + overflow.length + 1;
    overflow.push({ agent, tid, n: lane.length + 1 });
    lane.push({ tid, open: [end] });
    return tid;
  };
  // Threads of the slices, placed in start order (longest first on ties, so that parents hold children).
  const sliceTid = new Map<number, number>();
  trace.events
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => e.duration_s !== undefined && e.duration_s > 0)
    .sort((a, b) => a.e.t - b.e.t || b.e.duration_s! - a.e.duration_s! || a.i - b.i)
    .forEach(({ e, i }) => sliceTid.set(i, place(e.agent, micros(e.t), micros(e.t) + micros(e.duration_s!))));
  trace.events.forEach((e, i) => {
    const { t, duration_s: duration, agent, content, ...rest } = e;
    const args: Record<string, unknown> = { ...rest };
    if (content !== undefined) args.content = content.length > maxContent ? `${content.slice(0, maxContent)}… (${content.length} characters)` : content;
    const base = { name: eventName(e), cat: e.type, pid, ts: micros(t), args };
    const tid = sliceTid.get(i);
    if (tid !== undefined) traceEvents.push({ ...base, ph: 'X', tid, dur: micros(duration!) });
    else traceEvents.push({ ...base, ph: 'i', s: 't', tid: lanes.get(agent)! });
  });
  const metadata: ChromeTraceEvent[] = [];
  for (const o of overflow) {
    metadata.push({ name: 'thread_name', ph: 'M', pid, tid: o.tid, args: { name: `${o.agent} (${o.n})` } });
    metadata.push({ name: 'thread_sort_index', ph: 'M', pid, tid: o.tid, args: { sort_index: lanes.get(o.agent)! * 100 + o.n } });
  }
  traceEvents.splice(1 + 2 * lanes.size, 0, ...metadata);
  const otherData: Record<string, unknown> = {};
  for (const key of ['trace_id', 'task_id', 'system', 'topology'] as const) if (trace[key] !== undefined) otherData[key] = trace[key];
  return { traceEvents, displayTimeUnit: 'ms', otherData };
}

/** The Chrome Trace Event JSON text (compact, one event per line, ending in a newline). */
export function toChromeTraceJson(trace: Trace, options?: ChromeTraceOptions): string {
  const { traceEvents, ...rest } = toChromeTrace(trace, options);
  const head = JSON.stringify(rest).slice(1, -1);
  return `{${head},"traceEvents":[\n${traceEvents.map((e) => JSON.stringify(e)).join(',\n')}\n]}\n`;
}
