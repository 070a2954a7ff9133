/**
 * The `otrace` executable (dist/cli.js): see src/cli/ for the commands.
 *
 *   otrace validate FILE...                          exit 0 when no errors, 1 otherwise
 *   otrace convert FILE --to FORMAT [-o OUT]         FORMAT: otrace-json | otrace-jsonl | survey-json | chrome-trace
 *   otrace stats FILE [--json]
 *   otrace analyze FILE [--json] [--outcome failure|success]   stops, loops, credit, blame, metrics
 *   otrace open PATH                                 a trace or a folder's newest trace in VS Code
 *   otrace mcp                                       the language model tools over MCP on stdio
 */
import { main } from './main';

export { main };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
