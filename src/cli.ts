/**
 * `otrace`: validate, inspect and convert orchestration traces from the command line.
 *
 *   otrace validate FILE...                          exit 0 when no errors, 1 otherwise
 *   otrace convert FILE --to FORMAT [-o OUT]         FORMAT: otrace-json | otrace-jsonl | survey-json
 *   otrace stats FILE [--json]
 *   otrace analyze FILE [--json] [--outcome failure|success]   stops, loops, credit, blame, metrics
 *
 * Problems print as `FILE:LINE:COLUMN: error|warning: message` (1-based), the way compilers do,
 * so terminals and editors can jump to them.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadTrace } from './trace/formats';
import { formatPosition, type LoadedTrace } from './trace/model';
import { nodeFileAccess } from './trace/node-files';
import { traceStats } from './trace/stats';
import { OUTPUT_FORMATS, writeTrace, type OutputFormat } from './trace/write';
import './trace/importers';
import { analyzeTrace } from './analysis';

const USAGE = `usage:
  otrace validate FILE...
  otrace convert FILE --to ${OUTPUT_FORMATS.join('|')} [-o OUT]
  otrace stats FILE [--json]
  otrace analyze FILE [--json] [--outcome failure|success]`;

/** Reads a trace file of any known format; exits 2 when the file cannot be read. */
function load(file: string): LoadedTrace {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    fail(`cannot read ${file}: ${(err as Error).message}`);
  }
  return loadTrace(text, file, nodeFileAccess);
}

/** A number for people: at most 3 decimals. */
const num = (n: number): string => String(Math.round(n * 1000) / 1000);

function fail(message: string): never {
  process.stderr.write(`otrace: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** Prints problems as FILE:LINE:COLUMN lines; returns the number of errors. */
function printProblems(file: string, loaded: LoadedTrace, out: NodeJS.WriteStream): number {
  let errors = 0;
  for (const p of loaded.problems) {
    if (p.severity === 'error') errors++;
    out.write(`${p.file ?? file}:${formatPosition(p.range.start)}: ${p.severity}: ${p.message}\n`);
  }
  return errors;
}

function validate(files: string[]): number {
  if (files.length === 0) fail('validate needs at least one FILE');
  let failed = 0;
  let unreadable = 0;
  for (const file of files) {
    if (!fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      process.stderr.write(`otrace: cannot read ${file}: ${fs.existsSync(file) ? 'it is a directory' : 'no such file'}\n`);
      unreadable++;
      continue;
    }
    const loaded = load(file);
    const errors = printProblems(file, loaded, process.stdout);
    if (errors > 0) failed++;
    else process.stderr.write(`${file}: ok (${loaded.format}, ${loaded.trace.events.length} events)\n`);
  }
  return unreadable > 0 ? 2 : failed > 0 ? 1 : 0;
}

function convert(args: string[]): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { to: { type: 'string' }, o: { type: 'string', short: 'o' }, output: { type: 'string' } } });
  const [file] = positionals;
  if (!file || positionals.length > 1) fail('convert takes one FILE');
  const to = values.to as OutputFormat | undefined;
  if (!to || !OUTPUT_FORMATS.includes(to)) fail(`--to must be one of ${OUTPUT_FORMATS.join(', ')}`);
  const loaded = load(file);
  const errors = printProblems(file, loaded, process.stderr);
  const text = writeTrace(loaded.trace, to);
  const out = values.o ?? values.output;
  if (out) fs.writeFileSync(out, text);
  else process.stdout.write(text);
  return errors > 0 ? 1 : 0;
}

function stats(args: string[]): number {
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
}

/** `otrace analyze`: the analysis as JSON, or a readable summary (see docs/analysis.md). */
function analyze(args: string[]): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, outcome: { type: 'string' } } });
  const [file] = positionals;
  if (!file || positionals.length > 1) fail('analyze takes one FILE');
  const outcome = values.outcome;
  if (outcome !== undefined && outcome !== 'failure' && outcome !== 'success') fail('--outcome must be failure or success');
  const loaded = load(file);
  const errors = printProblems(file, loaded, process.stderr);
  const a = analyzeTrace(loaded, { outcome });
  if (values.json) {
    process.stdout.write(JSON.stringify(a, null, 2) + '\n');
    return errors > 0 ? 1 : 0;
  }
  const agents = Object.entries(a.credit.agents).sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]));
  const m = a.metrics;
  const lines = [
    `${file}`,
    `  outcome    ${a.outcome.status} (${a.outcome.source})`,
    ...a.stops.map((s) => `  stop       ${s.event}: ${s.message}`),
    ...(a.loops.length ? a.loops.map((l) => `  loop       ${l.kind} at ${l.events[0]}: ${l.message}`) : ['  loops      none']),
    `  blame      ${a.blame ? `${a.blame.agent} at ${a.blame.event} (record ${a.blame.record}): ${a.blame.message}` : 'none (the trace did not fail by its own signal; see --outcome)'}`,
    `  credit     ${a.credit.signed ? 'signed' : 'unsigned'}; by agent ${agents.slice(0, 6).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
    `  best stop  ${a.best_stop ? `${a.best_stop.event} (${a.best_stop.basis}), ${a.best_stop.after.events} events after it` : 'none'}`,
    `  V_stop     ${a.v_stop.available ? a.v_stop.points.map((p) => `${p.event} ${p.value}`).join(', ') : a.v_stop.note}`,
    `  metrics    parallelism ${m.parallelism} (${m.total_work}/${m.critical_path} ${m.work_basis}), spawns ${m.spawns}, fan-out ${m.max_fan_out}, depth ${m.spawn_depth}, protocol overhead ${m.protocol_overhead ?? 'n/a'} (${m.overhead_basis})`,
    `  topology   ${a.topology.guess}${a.topology.declared ? ` (declared ${a.topology.declared})` : ''}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return errors > 0 ? 1 : 0;
}

/** Runs the CLI on `argv` (without node and script) and returns the exit code. */
export function main(argv: string[]): number {
  const [command, ...rest] = argv;
  switch (command) {
    case 'validate':
      return validate(rest);
    case 'convert':
      return convert(rest);
    case 'stats':
      return stats(rest);
    case 'analyze':
      return analyze(rest);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(USAGE + '\n');
      return command === undefined ? 2 : 0;
    default:
      fail(`unknown command "${command}"`);
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
