/**
 * `otrace`: validate, inspect and convert orchestration traces from the command line.
 *
 *   otrace validate FILE...                          exit 0 when no errors, 1 otherwise
 *   otrace convert FILE --to FORMAT [-o OUT]         FORMAT: otrace-json | otrace-jsonl | survey-json
 *   otrace stats FILE [--json]
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

const USAGE = `usage:
  otrace validate FILE...
  otrace convert FILE --to ${OUTPUT_FORMATS.join('|')} [-o OUT]
  otrace stats FILE [--json]`;

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
  for (const file of files) {
    const loaded = load(file);
    const errors = printProblems(file, loaded, process.stdout);
    if (errors > 0) failed++;
    else process.stderr.write(`${file}: ok (${loaded.format}, ${loaded.trace.events.length} events)\n`);
  }
  return failed > 0 ? 1 : 0;
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
    `  time       ${s.time ? `${s.time.start} s .. ${s.time.end} s (${s.time.span_s} s)` : 'none'}`,
    `  costs      ${Object.entries(s.costs).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `  tool calls ${s.tool_calls}, messages ${s.messages}`,
    `  stops      ${s.stops.length ? s.stops.map((x) => `${x.id} (${x.reason})`).join(', ') : 'none recorded'}`,
    `  problems   ${s.problems.errors} errors, ${s.problems.warnings} warnings`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
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
