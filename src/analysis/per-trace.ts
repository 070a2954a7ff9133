/**
 * Analysis of a file holding several traces (docs/model.md "Several traces in one file"): each
 * trace is analysed on its own (stops, loops, credit, blame and findings never cross traces), and
 * the results are put back in the file's terms (event indices of `loaded.trace.events`).
 * Pure: no `vscode`.
 */
import type { LoadedTrace } from '../trace/model';
import { subTrace, type TraceGroup } from '../trace/trace-groups';
import type { Analysis, Credit, Finding, TraceAnalysis } from './types';
import { addTo, ownField } from '../trace/counts';

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/**
 * Analyses each group with `analyze` and merges the results.
 * - `traces`: each trace's own analysis, event indices mapped to the file's;
 * - `stops`, `verification`, `loops`, `findings`: every trace's, findings most severe first, each message starting `trace <id>: `;
 * - `credit`: every event's value from its own trace's credit; agent and step sums added up;
 * - `outcome`, `best_stop`, `v_stop`, `blame`, `metrics`, `topology`: the first trace's (each
 *   trace's own are in `traces`).
 * @param groups the file's traces (at least two), from `severalTraces`.
 */
export function analyzePerTrace(loaded: LoadedTrace, groups: readonly TraceGroup[], analyze: (part: LoadedTrace) => Analysis): Analysis {
  const n = loaded.trace.events.length;
  const traces: TraceAnalysis[] = groups.map((g) => ({ trace_id: g.id, events: g.indices.length, ...mapIndices(analyze(subTrace(loaded, g)), g.indices) }));
  const byIndex = new Array<number>(n).fill(0);
  const credit: Credit = { ...traces[0].credit, events: {}, by_index: byIndex, agents: {}, steps: {}, given: [] };
  groups.forEach((g, k) => {
    const c = traces[k].credit;
    g.indices.forEach((i) => (byIndex[i] = c.by_index[i] ?? 0));
    for (const [id, v] of Object.entries(c.events)) if (ownField(credit.events, id) === undefined) addTo(credit.events, id, v);
    for (const [a, v] of Object.entries(c.agents)) addTo(credit.agents, a, v);
    for (const [s, v] of Object.entries(c.steps)) addTo(credit.steps, s, v);
    credit.given.push(...c.given);
  });
  const findings: Finding[] = traces
    .flatMap((t) => t.findings.map((f) => ({ ...f, message: `trace ${t.trace_id}: ${f.message}` })))
    .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.events[0] - b.events[0]);
  const first = traces[0];
  return {
    time_unit: first.time_unit,
    outcome: first.outcome,
    stops: traces.flatMap((t) => t.stops),
    verification: traces.flatMap((t) => t.verification),
    best_stop: first.best_stop,
    v_stop: first.v_stop,
    loops: traces.flatMap((t) => t.loops),
    credit,
    blame: first.blame,
    metrics: first.metrics,
    topology: first.topology,
    findings,
    traces,
  };
}

/** One trace's analysis with its local event indices (positions in `indices`) mapped to the file's. */
function mapIndices(a: Analysis, indices: readonly number[]): Analysis {
  const at = (i: number) => indices[i] ?? i;
  const byIndex: number[] = [];
  a.credit.by_index.forEach((v, i) => (byIndex[at(i)] = v));
  return {
    ...a,
    stops: a.stops.map((s) => ({ ...s, index: at(s.index), ...(s.done_index === undefined ? {} : { done_index: at(s.done_index) }), ...(s.unverified_index === undefined ? {} : { unverified_index: at(s.unverified_index) }), ...(s.evidence_indices === undefined ? {} : { evidence_indices: s.evidence_indices.map(at) }) })),
    verification: a.verification.map((v) => ({ ...v, index: at(v.index), evidence_indices: v.evidence_indices.map(at) })),
    best_stop: a.best_stop && { ...a.best_stop, index: at(a.best_stop.index) },
    loops: a.loops.map((l) => ({ ...l, indices: l.indices.map(at) })),
    credit: { ...a.credit, by_index: byIndex },
    blame: a.blame && { ...a.blame, index: at(a.blame.index) },
    findings: a.findings.map((f) => ({ ...f, events: f.events.map(at) })),
  };
}
