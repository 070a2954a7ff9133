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
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CHAT_TOOL_NAMES, CHAT_TOOLS, runChatTool, type ToolTraces } from '../engine/chat-tools';
import { DiskTraces, toolTraces } from '../engine/tool-traces';
import { fail, type Command } from './common';
import { priceCall } from './prices';

/** The version the server reports (package.json's). */
const VERSION = '0.1.0';

export const mcp: Command = {
  usage: 'otrace mcp                                                   # serve the tools (summary, findings, blame, events, compare) over MCP on stdio',
  run(args) {
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    if (positionals.length) fail('mcp takes no FILE: each tool call names its trace');
    serve().catch((err: unknown) => {
      process.stderr.write(`otrace mcp: ${(err as Error).message}\n`);
      process.exit(1);
    });
    return 0; // the process lives on while the transport is open
  },
};

/**
 * An MCP server with every tool of chat-tools.ts, reading traces from disk (`cwd` for relative
 * paths). Each call answers one text content: the tool's facts as JSON, or (`isError`) why there are none.
 */
export function toolServer(cwd = process.cwd()): McpServer {
  const server = new McpServer({ name: 'otrace', version: VERSION }, { capabilities: { tools: {} } });
  const disk = new DiskTraces();
  const traces: ToolTraces = toolTraces({ disk, price: priceCall });
  const resolved = (p: unknown) => (typeof p === 'string' && p ? path.resolve(cwd, p) : p);
  for (const name of CHAT_TOOL_NAMES) {
    const tool = CHAT_TOOLS[name];
    server.registerTool(name, { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: { readOnlyHint: true, openWorldHint: false } }, (input: Record<string, unknown>) => {
      const args: Record<string, unknown> = { ...input, ...(name === 'otrace_compare' ? { a: resolved(input.a), b: resolved(input.b) } : { file: resolved(input.file) }) };
      for (const k of ['a', 'b', 'file']) if (args[k] === undefined) delete args[k];
      const answer = runChatTool(traces, name, args);
      return 'error' in answer ? { content: [{ type: 'text', text: answer.error }], isError: true } : { content: [{ type: 'text', text: JSON.stringify(answer.result) }] };
    });
  }
  return server;
}

async function serve(): Promise<void> {
  await toolServer().connect(new StdioServerTransport());
}
