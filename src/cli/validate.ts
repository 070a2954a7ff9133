/**
 * `otrace validate FILE...`: problems of each file; exit 0 ok, 1 errors, 2 a file could not be read.
 * An otrace JSONL file is read into columns (src/trace/columns: the same problems, no object per
 * record), the rest as every command reads them.
 */
import { loadTraceColumnsFile } from '../trace/load-file';
import type { Problem } from '../trace/model';
import { type Command, EXIT, fail, mappingFile, printProblems, safePath, terminalLine, tryLoad, unreadable } from './common';

/** What validate needs of a file: its format, problems and number of events; or the error that kept it from being read. */
function check(file: string): { format: string; problems: Problem[]; events: number } | { error: unknown } {
  if (mappingFile() === undefined) {
    try {
      const columns = loadTraceColumnsFile(file);
      if (columns) return { format: columns.format, problems: columns.problems, events: columns.columns.eventCount };
    } catch (error) {
      return { error };
    }
  }
  const loaded = tryLoad(file);
  return 'error' in loaded ? loaded : { format: loaded.format, problems: loaded.problems, events: loaded.trace.events.length };
}

export const validate: Command = {
  usage: 'otrace validate FILE...',
  run(files) {
    if (files.length === 0) fail('validate needs at least one FILE');
    let failed = 0;
    let unread = 0;
    for (const file of files) {
      const loaded = check(file);
      if ('error' in loaded) {
        process.stderr.write(`otrace: ${terminalLine(unreadable(file, loaded.error))}\n`);
        unread++;
        continue;
      }
      const errors = printProblems(file, loaded, process.stdout);
      if (errors > 0) failed++;
      else process.stderr.write(`${safePath(file)}: ok (${loaded.format}, ${loaded.events} events)\n`);
    }
    return unread > 0 ? EXIT.usage : failed > 0 ? EXIT.problems : EXIT.ok;
  },
};
