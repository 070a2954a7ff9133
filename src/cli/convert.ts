/** `otrace convert FILE --to FORMAT [-o OUT]`: writes the trace in another format (stdout by default). */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { traceToWrite } from '../trace/field-order';
import { OUTPUT_FORMATS, writeTrace, type OutputFormat } from '../trace/write';
import { fail, load, printProblems, type Command } from './common';

export const convert: Command = {
  usage: `otrace convert FILE --to ${OUTPUT_FORMATS.join('|')} [-o OUT]`,
  run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { to: { type: 'string' }, o: { type: 'string', short: 'o' }, output: { type: 'string' } } });
    const [file] = positionals;
    if (!file || positionals.length > 1) fail('convert takes one FILE');
    const to = values.to as OutputFormat | undefined;
    if (!to || !OUTPUT_FORMATS.includes(to)) fail(`--to must be one of ${OUTPUT_FORMATS.join(', ')}`);
    const loaded = load(file);
    const errors = printProblems(file, loaded, process.stderr);
    const text = writeTrace(traceToWrite(loaded), to);
    const out = values.o ?? values.output;
    if (out) fs.writeFileSync(out, text);
    else process.stdout.write(text);
    return errors > 0 ? 1 : 0;
  },
};
