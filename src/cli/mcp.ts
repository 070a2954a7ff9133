/**
 * `otrace mcp`: otrace's language model tools (src/engine/chat-tools.ts: the run summary, findings
 * with evidence, blame, events in a range, two runs compared) served over the Model Context
 * Protocol on stdin/stdout, with the official SDK (@modelcontextprotocol/sdk), so a coding agent
 * outside VS Code can read the findings of its own past runs. The tools are the ones VS Code's chat
 * calls, with the same inputs and answers (as JSON text); there is no trace in view here, so each
 * call names its file (relative paths start at the directory `otrace mcp` runs in). Costs are
 * priced with the CLI's price data (src/cli/prices.ts), as `otrace summary` prices them.
 * Nothing but protocol messages is written to stdout; the server ends when its input closes.
 */
import { parseArgs } from 'node:util';
import { fail, type Command } from './common';

export const mcp: Command = {
  usage: 'otrace mcp                                                   # serve the tools (summary, findings, blame, events, compare) over MCP on stdio',
  run(args) {
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    if (positionals.length) fail('mcp takes no FILE: each tool call names its trace');
    // the server, the SDK and the tools are loaded only for this command
    import('./mcp-server').then(({ serve }) => serve()).catch((err: unknown) => {
      process.stderr.write(`otrace mcp: ${(err as Error).message}\n`);
      process.exit(1);
    });
    return 0; // the process lives on while the transport is open
  },
};
