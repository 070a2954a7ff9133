/** `otrace stats FILE [--json]`: format, events by type, agents, time span, costs, stops; the problems on stderr. Exit 1 on an unknown format or a trace with errors. */
import { parseArgs } from 'node:util';
import { traceStats, type TraceStats } from '../trace/stats';
import { formatTotals } from '../trace/tokens';
import { formatAt, formatSpan, type TimeUnit } from '../trace/units';
import { EXIT, fail, load, notATrace, num, printProblems, safe, safeJson, type Command } from './common';

export const stats: Command = {
  usage: 'otrace stats FILE [--json]',
  run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
    const [file] = positionals;
    if (!file || positionals.length > 1) fail('stats takes one FILE');
    const loaded = load(file);
    if (loaded.format === 'unknown') return notATrace(file, loaded);
    const errors = printProblems(file, loaded, process.stderr);
    const exit = errors > 0 ? EXIT.problems : EXIT.ok;
    const s = traceStats(loaded);
    if (values.json) {
      process.stdout.write(safeJson(s) + '\n');
      return exit;
    }
    process.stdout.write(statsLines(file, s).join('\n') + '\n');
    return exit;
  },
};

/** The text lines of `otrace stats FILE` (trace content made safe for the terminal). */
export function statsLines(file: string, s: TraceStats): string[] {
  return [
    `${safe(file, 1000)}`,
    `  format     ${safe(s.format)}`,
    `  events     ${s.events} (${Object.entries(s.by_type).map(([t, n]) => `${safe(t)} ${n}`).join(', ')})`,
    `  edges      ${s.edges}`,
    `  agents     ${s.agents.length}: ${s.agents.map((a) => safe(a)).join(', ')}`,
    `  time       ${timeRange(s.time, s.time_unit)}`,
    `  tokens     ${formatTotals(s.tokens, s.costs.event_tokens ?? 0)}`,
    `  costs      ${Object.entries(s.costs).map(([k, v]) => `${safe(k)} ${v}`).join(', ')}`,
    `  tool calls ${s.tool_calls}, messages ${s.messages}`,
    `  stops      ${s.stops.length ? s.stops.map((x) => `${safe(x.id)} (${safe(x.reason)})`).join(', ') : 'none recorded'}`,
    `  problems   ${s.problems.errors} errors, ${s.problems.warnings} warnings`,
    ...(s.traces ? [`  traces     ${s.traces.length}`] : []),
    ...(s.traces ?? []).flatMap((t) => [
      `  trace ${safe(t.trace_id)}`,
      `    events     ${t.events} (${Object.entries(t.by_type).map(([k, n]) => `${safe(k)} ${n}`).join(', ')})`,
      `    agents     ${t.agents.length}: ${t.agents.map((a) => safe(a)).join(', ')}`,
      `    time       ${timeRange(t.time, s.time_unit)}`,
      `    stops      ${t.stops.length ? t.stops.map((x) => `${safe(x.id)} (${safe(x.reason)})`).join(', ') : 'none recorded'}`,
    ]),
  ];
}

/** `0 s .. 128 s (128 s)`, or `step 0 .. step 128 (128 steps)` when the trace counts steps; `none` without events. */
function timeRange(time: TraceStats['time'], unit: TimeUnit): string {
  if (!time) return 'none';
  if (unit === 'steps') return `${formatAt(time.start, unit)} .. ${formatAt(time.end, unit)} (${formatSpan(time.span_s, unit)})`;
  return `${num(time.start)} s .. ${num(time.end)} s (${num(time.span_s)} s)`;
}
