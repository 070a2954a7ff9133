/**
 * The names of otrace's language model tools and what one call of them answers: the contract the
 * extension host registers them by (vscode.lm.registerTool) and the engine answers them by
 * (src/engine/chat-tools.ts, in the worker; the same module serves `otrace mcp`). Types and
 * constants only, no zod: the extension host loads it.
 */
import { escapeJsonControls } from '../trace/preview';

/** The tools, in the order they are listed (package.json `contributes.languageModelTools` names the same). */
export const CHAT_TOOL_NAMES = ['otrace_summary', 'otrace_findings', 'otrace_blame', 'otrace_events', 'otrace_compare'] as const;

/** The name of one tool. */
export type ChatToolName = (typeof CHAT_TOOL_NAMES)[number];

/** True when `name` is one of otrace's tools. */
export function isChatToolName(name: unknown): name is ChatToolName {
  return typeof name === 'string' && (CHAT_TOOL_NAMES as readonly string[]).includes(name);
}

/**
 * The answer of one tool call: its facts (a JSON-ready object: every event named by id and by
 * index, trace strings raw, as plain text to be escaped wherever it is shown), or why there are none
 * (the input is wrong, the file is no trace, no trace is in view).
 */
export type ChatToolAnswer = { result: Record<string, unknown> } | { error: string };

/** The trace in view when a tool is called from VS Code: its session key and snapshot stamp (the engine answers for that snapshot). */
export interface ToolView {
  key: string;
  stamp: number;
}

/** An event as the tools cite it. */
export interface CitedEvent {
  /** The event's id in the trace (ids may repeat in real files: `index` is unique). */
  id: string;
  /** Its index among the trace's events (file order): what `otrace_events` and the graph take. */
  index: number;
  type: string;
  agent: string;
  /** 1-based line of its record in its file. */
  line: number | null;
  /** The file it is in, when not the trace file (a sub-agent transcript). */
  file?: string;
}

/**
 * A tool's facts as the JSON text a model or an MCP client reads: C1 controls, bidi marks and
 * overrides and line separators in trace content written as `\u` escapes (JSON.stringify keeps them
 * raw), so a client that shows the answer cannot be made to reorder or hide text by a trace.
 */
export function answerText(result: unknown): string {
  return escapeJsonControls(JSON.stringify(result));
}
