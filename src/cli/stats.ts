/**
 * `otrace stats FILE [--json]`: format, events by type, agents, time span, tokens by kind, costs, stops; the problems on stderr. Exit 1 on an unknown format or a trace with errors.
 * Text output: every name through `safe`, every list clipped (`… and 999,990 more`), no line over 1,000 characters.
 */
import { parseArgs } from 'node:util';
import { traceStats, type TraceStats } from '../trace/stats';
import { formatTotals } from '../trace/tokens';
import { formatAt, formatSpan, type TimeUnit } from '../trace/units';
import { clipList, type Command, fail, loadOne, num, safe, safeJson, safePath, writeLines } from './common';

export const stats: Command = {
  usage: 'otrace stats FILE [--json]',
  run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
    const [file] = positionals;
    if (!file || positionals.length > 1) fail('stats takes one FILE');
    const one = loadOne(file);
    if (typeof one === 'number') return one;
    const s = traceStats(one.loaded);
    if (values.json) process.stdout.write(safeJson(s) + '\n');
    else writeLines(process.stdout, statsLines(file, s));
    return one.exit;
  },
};

/** The text lines of `otrace stats FILE` (trace content made safe for the terminal, lists clipped). */
export function statsLines(file: string, s: TraceStats): string[] {
  return [
    `${safePath(file)}`,
    `  format     ${safe(s.format)}`,
    `  events     ${s.events} (${clipList(Object.entries(s.by_type), ([t, n]) => `${safe(t)} ${n}`)})`,
    `  edges      ${s.edges}`,
    `  agents     ${s.agents.length}: ${clipList(s.agents, (a) => safe(a))}`,
    `  time       ${timeRange(s.time, s.time_unit)}`,
    `  tokens     ${formatTotals(s.tokens, s.costs.event_tokens ?? 0)}`,
    `  costs      ${clipList(Object.entries(s.costs), ([k, v]) => `${safe(k)} ${v}`)}`,
    `  tool calls ${s.tool_calls}, messages ${s.messages}`,
    `  stops      ${s.stops.length ? clipList(s.stops, stop) : 'none recorded'}`,
    `  problems   ${s.problems.errors} errors, ${s.problems.warnings} warnings`,
    ...(s.traces ? [`  traces     ${s.traces.length}`] : []),
    ...(s.traces ?? []).flatMap((t) => [
      `  trace ${safe(t.trace_id)}`,
      `    events     ${t.events} (${clipList(Object.entries(t.by_type), ([k, n]) => `${safe(k)} ${n}`)})`,
      `    agents     ${t.agents.length}: ${clipList(t.agents, (a) => safe(a))}`,
      `    time       ${timeRange(t.time, s.time_unit)}`,
      `    stops      ${t.stops.length ? clipList(t.stops, stop) : 'none recorded'}`,
    ]),
  ];
}

/** A stop as the list shows it: `id (reason)`. */
function stop(x: { id: string; reason: string }): string {
  return `${safe(x.id)} (${safe(x.reason)})`;
}

/** `0 s .. 128 s (128 s)`, or `step 0 .. step 128 (128 steps)` when the trace counts steps; `none` without events. */
function timeRange(time: TraceStats['time'], unit: TimeUnit): string {
  if (!time) return 'none';
  if (unit === 'steps') return `${formatAt(time.start, unit)} .. ${formatAt(time.end, unit)} (${formatSpan(time.span_s, unit)})`;
  return `${num(time.start)} s .. ${num(time.end)} s (${num(time.span_s)} s)`;
}
