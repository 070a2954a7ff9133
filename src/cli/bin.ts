/**
 * The `otrace` executable (dist/cli.js): see src/cli/ for the commands.
 *
 *   otrace validate FILE...                          exit 0 when no errors, 1 otherwise
 *   otrace convert FILE --to FORMAT [-o OUT]         FORMAT: otrace-json | otrace-jsonl | survey-json | chrome-trace
 *   otrace stats FILE [--json]
 *   otrace analyze FILE [--json] [--outcome failure|success]   stops, loops, credit, blame, metrics
 *   otrace open PATH                                 a trace or a folder's newest trace in VS Code
 *   otrace mcp                                       the language model tools over MCP on stdio
 *
 * The same file is the script of the worker threads of commands over a corpus (pool.ts): started
 * with `workerData` marked, it serves their tasks instead of running a command.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { countBuffersInHeapLimit } from '../engine/heap-accounting';
import { handleFileTask } from './corpus-run';
import { main } from './main';
import { POOL_MARK, serveTasks, setWorkerScript } from './pool';

export { main };

const poolData = !isMainThread && parentPort && typeof workerData === 'object' && workerData !== null ? (workerData as Record<string, unknown>)[POOL_MARK] : undefined;
if (poolData !== undefined && parentPort) {
  serveTasks(parentPort, poolData, handleFileTask);
} else if (require.main === module) {
  // the process is the command's (its pool's threads share it): typed arrays count towards the heap's limit (heap-accounting.ts)
  countBuffersInHeapLimit();
  setWorkerScript(__filename);
  const code = main(process.argv.slice(2));
  if (typeof code === 'number') process.exitCode = code;
  else
    code.then(
      (c) => (process.exitCode = c),
      (err: unknown) => {
        process.stderr.write(`otrace: ${(err as Error)?.stack ?? String(err)}
`);
        process.exitCode = 2;
      },
    );
}
