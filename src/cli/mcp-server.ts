/**
 * The MCP server of `otrace mcp` (mcp.ts): every tool of src/engine/chat-tools.ts registered with the
 * official SDK's McpServer, answered from trace files on disk. Loaded only when `otrace mcp` runs.
 */
import * as path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CHAT_TOOL_NAMES, CHAT_TOOLS, runChatTool, type ToolTraces } from '../engine/chat-tools';
import { answerText } from '../engine/chat-tool-names';
import { escapeJsonControls } from '../trace/preview';
import { DiskTraces, toolTraces } from '../engine/tool-traces';
import { priceCall } from './prices';

/** The version the server reports (package.json's). */
const VERSION = '0.1.0';

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
      return 'error' in answer ? { content: [{ type: 'text', text: escapeJsonControls(answer.error) }], isError: true } : { content: [{ type: 'text', text: answerText(answer.result) }] };
    });
  }
  return server;
}

/** Serves the tools on stdin/stdout until the input closes. */
export async function serve(): Promise<void> {
  await toolServer().connect(new StdioServerTransport());
}
