/** `otrace stats FILE [--json]`: format, events by type, agents, time span, costs, stops. Exit 1 on an unknown format. */
import { parseArgs } from 'node:util';
import { traceStats } from '../trace/stats';
import { fail, load, num, printProblems, type Command } from './common';

export const stats: Command = {
  usage: 'otrace stats FILE [--json]',
  run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
    const [file] = positionals;
    if (!file || positionals.length > 1) fail('stats takes one FILE');
    const loaded = load(file);
    if (loaded.format === 'unknown') {
      printProblems(file, loaded, process.stderr);
      return 1;
    }
    const s = traceStats(loaded);
    if (values.json) {
      process.stdout.write(JSON.stringify(s, null, 2) + '\n');
      return 0;
    }
    const lines = [
      `${file}`,
      `  format     ${s.format}`,
      `  events     ${s.events} (${Object.entries(s.by_type).map(([t, n]) => `${t} ${n}`).join(', ')})`,
      `  edges      ${s.edges}`,
      `  agents     ${s.agents.length}: ${s.agents.join(', ')}`,
      `  time       ${s.time ? `${num(s.time.start)} s .. ${num(s.time.end)} s (${num(s.time.span_s)} s)` : 'none'}`,
      `  costs      ${Object.entries(s.costs).map(([k, v]) => `${k} ${v}`).join(', ')}`,
      `  tool calls ${s.tool_calls}, messages ${s.messages}`,
      `  stops      ${s.stops.length ? s.stops.map((x) => `${x.id} (${x.reason})`).join(', ') : 'none recorded'}`,
      `  problems   ${s.problems.errors} errors, ${s.problems.warnings} warnings`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
    return 0;
  },
};
