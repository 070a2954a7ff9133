/** `otrace validate FILE...`: problems of each file; exit 0 ok, 1 errors, 2 a file could not be read. */
import { EXIT, fail, MAX_PATH, printProblems, safe, terminalLine, tryLoad, unreadable, type Command } from './common';

export const validate: Command = {
  usage: 'otrace validate FILE...',
  run(files) {
    if (files.length === 0) fail('validate needs at least one FILE');
    let failed = 0;
    let unread = 0;
    for (const file of files) {
      const loaded = tryLoad(file);
      if ('error' in loaded) {
        process.stderr.write(`otrace: ${terminalLine(unreadable(file, loaded.error))}\n`);
        unread++;
        continue;
      }
      const errors = printProblems(file, loaded, process.stdout);
      if (errors > 0) failed++;
      else process.stderr.write(`${safe(file, MAX_PATH)}: ok (${loaded.format}, ${loaded.trace.events.length} events)\n`);
    }
    return unread > 0 ? EXIT.usage : failed > 0 ? EXIT.problems : EXIT.ok;
  },
};
