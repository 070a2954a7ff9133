/**
 * `otrace`: validate, inspect, analyze and convert orchestration traces from the command line.
 * One module per command in this folder; this one only dispatches.
 */
import { analyze } from './analyze';
import { fail, safe, usage, useMapping, USAGE_LINES, type Command } from './common';
import { convert } from './convert';
import { dataset } from './dataset';
import { diff } from './diff';
import { mcp } from './mcp';
import { labels } from './labels';
import { open } from './open';
import { query } from './query';
import { stats } from './stats';
import { summary } from './summary';
import { validate } from './validate';

/** Commands by name, in the order the usage lists them. */
export const COMMANDS: Record<string, Command> = { validate, convert, stats, summary, analyze, dataset, query, labels, diff, open, mcp };
USAGE_LINES.push(...Object.values(COMMANDS).map((c) => c.usage), 'otrace --map FORMAT.otrace-map.json COMMAND FILE ...   # read an in-house format through a mapping file (docs/mapping.md)');

/** Runs the CLI on `argv` (without node and script) and returns the exit code (0 ok, 1 problems found, 2 usage or unreadable file), or a promise of it (commands over a corpus, query). */
export function main(argv: string[]): number | Promise<number> {
  // `--map FILE` (anywhere): read traces with a mapping file (docs/mapping.md).
  const at = argv.indexOf('--map');
  if (at !== -1) {
    if (argv[at + 1] === undefined) fail('--map needs a mapping file (*.otrace-map.json)');
    useMapping(argv[at + 1]);
    argv = [...argv.slice(0, at), ...argv.slice(at + 2)];
  }
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    process.stdout.write(usage() + '\n');
    return command === undefined ? 2 : 0;
  }
  const found = Object.prototype.hasOwnProperty.call(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!found) fail(`unknown command "${safe(command)}"`);
  // `otrace convert --help`: the command's usage (it threw a parser's stack trace)
  if (rest.includes('-h') || rest.includes('--help')) {
    process.stdout.write(`usage: ${found.usage}\n`);
    return 0;
  }
  try {
    const code = found.run(rest);
    return typeof code === 'number' ? code : code.catch(badArguments);
  } catch (err) {
    return badArguments(err);
  }
}

/** A bad option or argument the command's parser refused: its message and the usage (exit 2), never a stack trace; any other error as it is. */
function badArguments(err: unknown): never {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) fail((err as Error).message);
  throw err;
}
