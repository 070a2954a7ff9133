/**
 * `otrace convert FILE --to FORMAT [-o OUT]`: writes the trace in another format (stdout by
 * default). Never writes over the trace it reads; a file of no known format writes nothing (exit
 * 1); a trace with errors is written without its unreadable lines, said on stderr (exit 1).
 *
 * Every output format is JSON. Characters a terminal acts on but `JSON.stringify` leaves raw (C1
 * controls such as U+009B CSI and U+009D OSC, DEL, bidi marks, overrides and isolates, U+2028/2029)
 * are written as `\u009b` escapes, to stdout and to a file alike (C0 controls are escaped by JSON
 * already): the JSON holds the same strings, so a file read back gives the trace's text exactly, and
 * `cat` or a pipe to a terminal shows the escapes instead of acting on them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { traceToWrite } from '../trace/field-order';
import { OUTPUT_FORMATS, writeTrace, type OutputFormat } from '../trace/write';
import { escapeJsonControls } from '../trace/preview';
import { type Command, errorCount, fail, loadOne, safePath } from './common';

export const convert: Command = {
  usage: `otrace convert FILE --to ${OUTPUT_FORMATS.join('|')} [-o OUT]`,
  run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { to: { type: 'string' }, o: { type: 'string', short: 'o' }, output: { type: 'string' } } });
    const [file] = positionals;
    if (!file || positionals.length > 1) fail('convert takes one FILE');
    const to = values.to as OutputFormat | undefined;
    if (!to || !OUTPUT_FORMATS.includes(to)) fail(`--to must be one of ${OUTPUT_FORMATS.join(', ')}`);
    const out = values.o ?? values.output;
    if (out !== undefined && sameFile(out, file)) fail(`-o ${safePath(out)} is the trace being read; convert never writes over it`);
    const one = loadOne(file);
    if (typeof one === 'number') return one;
    const text = escapeJsonControls(writeTrace(traceToWrite(one.loaded), to)); // same JSON values, nothing a terminal acts on
    if (out) fs.writeFileSync(out, text);
    else process.stdout.write(text);
    const errors = errorCount(one.loaded);
    if (errors > 0) process.stderr.write(`otrace: ${errors} error${errors === 1 ? '' : 's'} above: what they name (bad lines, skipped records) is not in the output\n`);
    return one.exit;
  },
};

/** True when `a` and `b` name the same file (through links too); false when `a` does not exist yet. */
function sameFile(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    const sa = fs.statSync(a);
    const sb = fs.statSync(b);
    return sa.ino === sb.ino && sa.dev === sb.dev;
  } catch {
    return false;
  }
}
