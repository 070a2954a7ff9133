/** `otrace validate FILE...`: problems of each file; exit 0 ok, 1 errors, 2 a file could not be read. */
import * as fs from 'node:fs';
import { fail, load, printProblems, safe, type Command } from './common';

export const validate: Command = {
  usage: 'otrace validate FILE...',
  run(files) {
    if (files.length === 0) fail('validate needs at least one FILE');
    let failed = 0;
    let unreadable = 0;
    for (const file of files) {
      if (!fs.existsSync(file) || fs.statSync(file).isDirectory()) {
        process.stderr.write(`otrace: cannot read ${safe(file, 1000)}: ${fs.existsSync(file) ? 'it is a directory' : 'no such file'}\n`);
        unreadable++;
        continue;
      }
      const loaded = load(file);
      const errors = printProblems(file, loaded, process.stdout);
      if (errors > 0) failed++;
      else process.stderr.write(`${safe(file, 1000)}: ok (${loaded.format}, ${loaded.trace.events.length} events)\n`);
    }
    return unreadable > 0 ? 2 : failed > 0 ? 1 : 0;
  },
};
