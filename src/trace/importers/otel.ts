/**
 * Importer for OpenTelemetry GenAI spans in OTLP/JSON: the file exporter's JSON Lines (one
 * `TracesData` / `ExportTraceServiceRequest` object per line) or one OTLP JSON document, each holding
 * `resourceSpans[].scopeSpans[].spans[]` (also `instrumentationLibrarySpans`, snake_case keys, and
 * attributes as a plain object); GitHub Copilot Chat's Agent Debug Log export (an OTLP document with
 * a `copilotChat` header: kept in `metadata.otel.copilot.export`). Also JSON Lines of spans as an
 * OpenTelemetry JS SDK serializes them (`ReadableSpan`: ids at the top or in `_spanContext`, times as
 * HrTime `[seconds, nanoseconds]`, attributes as a plain object, `resource`, `instrumentationScope`),
 * which GitHub Copilot CLI's file exporter (`{"type":"span", ...}`, `~/.copilot/otel/*.jsonl`) and
 * Copilot Chat's (`github.copilot.chat.otel.outfile`) write, with their metric and log records in
 * the same file (counted in one info, `metadata.otel.not_spans`). A parent id of all zeros is no parent.
 * GenAI events written as log records (in this file, or in a logs file of the same export beside it)
 * give their spans content (./otel-logs.ts); a file whose GenAI spans carry no content says so once.
 * Agents calling agents (agent as a tool, A2A, remote invoke_agent, transfers) are settled in
 * ./otel-agent-calls.ts.
 * GitHub Copilot (its services `copilot-chat` / `github-copilot`, scope `github.copilot`, or
 * `github.copilot.*` / `copilot_chat.*` attributes): each outermost `invoke_agent` is one request,
 * so the stop at its end is a turn end (`scope: "turn"`), and `metadata.otel.copilot` lists the
 * conversation ids; hook spans (`hook <type>`, `execute_hook`) are tool calls of `hook:<type>`; a
 * tool span with a non-zero `process.exit.code` failed. Conventions followed: OpenTelemetry semantic conventions for GenAI
 * agent spans (docs/gen-ai/gen-ai-agent-spans.md, gen-ai-spans.md; status Development) and
 * OpenInference span kinds (`openinference.span.kind`).
 *
 * Span -> events (`record` = the span's 0-based ordinal in the file, range = the span object;
 * ids = the span id, derived events `<spanId>.return` / `.result` / `.stop`):
 * - `create_agent` -> `spawn` (creator's lane -> the created agent);
 * - `invoke_agent` / OpenInference AGENT -> `delegate` at start (caller lane -> agent) and `return`
 *   at end (agent -> caller), plus `stop` at end in the agent's lane when the span records why it
 *   ended: `gen_ai.response.finish_reasons` (last one: stop/end_turn -> task_complete, length/
 *   max_tokens -> budget_exhausted, timeout, error; tool_calls means it went on: no stop) or an
 *   ERROR status / `error.type` (-> error);
 * - `execute_tool` / OpenInference TOOL, RETRIEVER, RERANKER, op `retrieval` -> `tool_call` at start
 *   and `tool_result` at end (tool = `gen_ai.tool.name` / `tool.name`);
 * - `chat`, `generate_content`, `text_completion`, `embeddings` / OpenInference LLM, EMBEDDING ->
 *   `message` (tokens, `finish_reasons`, `model`);
 * - `invoke_workflow` / OpenInference CHAIN -> `orchestrator_decision`; OpenInference GUARDRAIL ->
 *   `safety_event`; other spans give no event (counted in metadata) but still pass on their lane.
 * Lane: `gen_ai.agent.name`, else `agent.name` (OpenInference), else `gen_ai.agent.id`, else the
 * nearest ancestor's lane, else the resource's `service.name`. The caller of an agent is its parent's lane.
 * Time: t = seconds since the earliest span start (start/endTimeUnixNano as strings or numbers,
 * exact via BigInt); duration_s = end - start. Tokens by kind (`usage`: input less its cached part,
 * output, cache read / write, reasoning; gen_ai.usage.* or llm.token_count.*) on model-call events,
 * whose own `tokens` are the output; an agent span's own usage counts only when no span under it
 * carries usage (it is usually the sum of its children).
 * Edges: parent span -> child span `causal`; delegate -> return and tool_call -> tool_result `return`;
 * create_agent -> the created agent's first invocation `spawn`; return -> stop `causal`; a span
 * link -> `link` (never parentage).
 * The tree (parentage, clock skew, open spans, orphans, cycles, links) comes from the span-tree
 * core (`../span-tree.ts`, rules in docs/model.md): a child that starts before its parent is placed
 * at the parent's start with `clock_skew_s` and `recorded_t`; an open span (no end, end 0) has no
 * `duration_s`, `open: true`, and no invented end event (no return, no tool result: the call's
 * `status` is `no_result`); orphans hang under a `missing_parent` placeholder; a parent cycle is cut
 * at its earliest span. Content comes from attributes and span events (./otel-content.ts).
 * The task (`metadata.task`) is the user's first prompt: the first `user` input message of the earliest span recording one,
 * else GitHub Copilot Chat's `copilot_chat.user_request`; with neither, `metadata.task_unknown` says why (no guess from a model output).
 * Metadata: `metadata.otel` = { trace_ids, services, spans, skipped_spans {operation: count}, agent_ids {name: id},
 * missing_parents, cut_parent_edges }. Spans that give no event are counted by kind in one warning.
 * There are no labels (ground truth) in this format. The span -> event mapping, lanes and the tree's
 * warnings are the shared span builder's (./span-import.ts `buildSpanTrace`); this file reads OTLP.
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type FileAccess, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace, type Origin, type Range } from '../model';
import { addTo } from '../counts';
import { ImportBuilder } from './json-import';
import { isContentEvent, spanContent, type SpanContent, type SpanEvent } from './otel-content';
import { a2aRole, linkAgentCalls, spanKindOf, type SpanKind } from './otel-agent-calls';
import { isFlatLog, isGenAiEvent, joinLogs, pairedFiles, readLogRecord, readLogsExport, type JoinedLogs, type LogRecord } from './otel-logs';
import { buildSpanTrace, forEachDocument, genAiSpan, str, text as asText, type ImportSpan } from './span-import';
import { attributes, hrNanos, idOf, isObject } from './otlp-values';
import { isComplete, items, nodeRange, propertyOf, sharedValueIn, type JsonDocument } from '../json-positions';

export const OTEL_FORMAT = 'otel-genai';

/** One OTLP span as read, before the tool calls of the whole file are known. */
interface OtlpSpan {
  span: ImportSpan;
  attrs: Record<string, unknown>;
  events: SpanEvent[];
  /** Its content (attributes, span events, joined log records): set by {@link withContent}. */
  content: SpanContent;
  status: Record<string, unknown> | undefined;
  kind?: SpanKind;
  /** The instrumentation scope's name, when recorded. */
  scope?: string;
}

/**
 * Sets a span's content from its attributes and span events, then from the GenAI log records joined
 * to it (what the span records comes first; the records fill what it lacks), and its input, output
 * and finish reasons from that; counts its `gen_ai.execution.state.changed` events (`state_changes`).
 */
function withContent(r: OtlpSpan, logEvents: readonly SpanEvent[]): void {
  const content = spanContent(r.attrs, r.events);
  if (logEvents.length) {
    const fromLogs = spanContent({}, logEvents);
    content.input ??= fromLogs.input;
    content.output ??= fromLogs.output;
    content.finishReasons ??= fromLogs.finishReasons;
    content.firstUser ??= fromLogs.firstUser;
    content.toolCalls.push(...fromLogs.toolCalls);
    content.toolResults.push(...fromLogs.toolResults);
  }
  r.content = content;
  const g = r.span;
  g.input = g.role === 'spawn' ? str(r.attrs['gen_ai.agent.description']) : g.role === 'chain' ? undefined : content.input;
  g.output = g.role === 'chain' ? undefined : content.output;
  g.finishReasons = finishReasons(r.attrs, content);
  const changes = [...r.events, ...logEvents].filter((e) => e.name === 'gen_ai.execution.state.changed').length;
  if (changes) g.extra = { ...g.extra, state_changes: changes };
}

/**
 * Reads OTLP JSON (JSON Lines or one document), with the GenAI log records of the same file and of a
 * sibling logs file (./otel-logs.ts; a logs file opened alone reads the spans file beside it).
 * Never throws: problems are returned with positions.
 * @param files reads the sibling files; without it only this file is read.
 */
export function readOtel(text: string, fileName: string, files?: FileAccess): LoadedTrace {
  const b = new ImportBuilder();
  const c: Collected = { b, spans: [], logs: [], file: { notSpans: {}, copilotChat: undefined } };
  collectFile(text, c);
  const besides = files ? readPairedFiles(fileName, files, c) : [];
  const joined = joinLogs(c.spans.map((r) => r.span), c.logs);
  reportLogs(c, joined, besides);
  reportNotSpans(c.file, b);
  c.spans.forEach((r, i) => withContent(r, joined.bySpan.get(i) ?? []));
  const read = c.spans;
  const serving = linkAgentCalls(read);
  const spans = withToolContent(read);
  const agentIds: Record<string, string> = {};
  for (const r of read) {
    const id = str(r.attrs['gen_ai.agent.id']);
    if (id && r.span.agent && id !== r.span.agent) agentIds[r.span.agent] = id;
  }
  const copilot = copilotFacts(read, c.file);
  const figures: Record<string, unknown> = {};
  if (Object.keys(agentIds).length) figures.agent_ids = agentIds;
  if (Object.keys(c.file.notSpans).length) figures.not_spans = c.file.notSpans;
  if (copilot) figures.copilot = copilot;
  if (Object.keys(joined.joined).length) figures.log_events = joined.joined;
  if (besides.length) figures.files = besides;
  const bare = noContent(spans);
  if (bare) figures.content = 'not_recorded';
  const task = firstPrompt(read);
  const loaded = buildSpanTrace(spans, b, fileName, {
    format: OTEL_FORMAT,
    source: 'otel',
    metaKey: 'otel',
    figures: Object.keys(figures).length ? figures : undefined,
    skipWhy: 'not GenAI / OpenInference operations',
    notes: [...spanEventNote(read), ...servingNote(read, serving), ...(bare ? [bare] : [])],
    maxTurnsFromError: false,
    // GitHub Copilot writes one invoke_agent per request: its end hands the chat back to the user.
    outerStopScope: copilot ? 'turn' : undefined,
  });
  if (besides.length) loaded.readFiles = besides;
  // No span records the user's prompt: the task is unknown (the first message is a model call's output, never the task).
  loaded.trace.metadata = { ...loaded.trace.metadata, ...(task !== undefined ? { task } : { task_unknown: 'no span records the user\'s prompt (gen_ai.input.messages, copilot_chat.user_request)' }) };
  return loaded;
}

/**
 * The user's first prompt: the first `user` input message of the earliest span that has one (then
 * file order); else GitHub Copilot Chat's `copilot_chat.user_request` of the earliest span recording
 * it ("User's actual typed message text, extracted from prompt context": vscode-copilot-chat
 * src/platform/otel/common/genAiAttributes.ts; the Agent Debug Log keeps it when it keeps no input
 * messages); undefined when no span records either.
 */
function firstPrompt(read: readonly OtlpSpan[]): string | undefined {
  const earliest = (text: (r: OtlpSpan) => string | undefined): string | undefined => {
    let best: OtlpSpan | undefined;
    for (const r of read) {
      if (text(r) === undefined) continue;
      if (!best || (r.span.start !== undefined && (best.span.start === undefined || r.span.start < best.span.start))) best = r;
    }
    return best && text(best);
  };
  return earliest((r) => r.content.firstUser) ?? earliest((r) => {
    const v = r.attrs['copilot_chat.user_request'];
    return typeof v === 'string' && v.trim() !== '' ? v : undefined;
  });
}

/** What the reader gathers from the file (and a sibling file): spans, log records, other records. */
interface Collected {
  b: ImportBuilder;
  spans: OtlpSpan[];
  logs: LogRecord[];
  file: FileFacts;
  /** The path of the file being read, when it is a sibling of the opened one (put on origins and problems). */
  path?: string;
}

/** Collects the spans and log records of one file's text into `c` (its parse problems too). */
function collectFile(text: string, c: Collected): void {
  forEachDocument(text, new LineIndex(text), (doc) => {
    for (const p of doc.problems) c.b.problems.push(c.path ? { ...p, file: c.path } : p);
    collectSpans(doc, c);
  });
}

/**
 * The sibling files of the same export (./otel-logs.ts `pairedFiles`): for a file with spans, the logs
 * files beside it (their log records); for a file with log records and no spans, the spans file beside it.
 * @returns the paths read.
 */
function readPairedFiles(fileName: string, files: FileAccess, c: Collected): string[] {
  const want = c.spans.length ? 'logs' : c.logs.length ? 'spans' : undefined;
  if (!want) return [];
  const read: string[] = [];
  for (const path of pairedFiles(fileName, files, want)) {
    const text = files.readText(path);
    if (text === undefined || !(want === 'logs' ? /"(resourceLogs|resource_logs|hrTime)"\s*:/ : /"(resourceSpans|resource_spans|spanId)"\s*:/).test(text.slice(0, 1 << 16))) continue;
    const sibling: Collected = { ...c, logs: want === 'logs' ? c.logs : [], spans: want === 'spans' ? c.spans : [], path };
    collectFile(text, sibling);
    // from a logs file only its log records; from a spans file its spans (and any log records beside them)
    if (want === 'spans') c.logs.push(...sibling.logs);
    read.push(path);
    if (want === 'spans') break; // one spans file: spans of two files would mix their ordinals
  }
  return read;
}

/**
 * One info for the GenAI log records joined to their spans (and the file they came from), one
 * warning for those whose span is not in the file; for a file of log records with no spans at all,
 * one warning saying where the spans should be.
 */
function reportLogs(c: Collected, joined: JoinedLogs, besides: readonly string[]): void {
  const name = (p: string) => p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
  const genAi = c.logs.filter((l) => isGenAiEvent(l.event.name));
  if (!c.spans.length && c.logs.length) {
    const traces = [...new Set(c.logs.map((l) => l.traceId).filter(Boolean))];
    const shown = traces.length > 3 ? `${traces.slice(0, 3).join(', ')}, ...` : traces.join(', ');
    const n = c.logs.length;
    c.b.problem('warning', `this file holds ${n} log record${n > 1 ? 's' : ''} (${genAi.length} GenAI event${genAi.length === 1 ? '' : 's'}) and no spans; the spans they belong to (trace${traces.length > 1 ? 's' : ''} ${shown || 'unknown'}) are in another file: open the traces file of the same export (a file named like this one with "traces" or "spans" for "logs", beside it, is read with it)`, c.logs[0].range);
    return;
  }
  if (besides.length) {
    const what = c.spans.some((r) => r.span.origin.file) ? 'spans' : 'log records';
    c.b.problem('info', `${what} read from ${besides.map(name).join(', ')} beside this file (the same export's other signal)`, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
  }
  const joinedCount = Object.values(joined.joined).reduce((a, n) => a + n, 0);
  if (joinedCount) {
    const first = genAi.find((l) => !joined.unjoined.includes(l))!;
    const kinds = Object.entries(joined.joined).map(([k, n]) => `${k} ${n}`).join(', ');
    problemAt(c, 'info', `${joinedCount} log record${joinedCount > 1 ? 's are GenAI events' : ' is a GenAI event'} joined to their spans by trace and span id (${kinds}); their content is read with the spans' own`, first);
  }
  const lost = joined.unjoined;
  if (lost.length) {
    const ids = [...new Set(lost.map((l) => l.spanId ?? 'none'))];
    const shown = ids.length > 5 ? `${ids.slice(0, 5).join(', ')}, ...` : ids.join(', ');
    problemAt(c, 'warning', `${lost.length} GenAI log record${lost.length > 1 ? 's name' : ' names'} a span not in this file (${shown}); not shown`, lost[0]);
  }
}

/** A problem at a log record (in its own file when that is a sibling). */
function problemAt(c: Collected, severity: 'info' | 'warning', message: string, at: LogRecord): void {
  c.b.problems.push({ severity, message, range: at.range, ...(at.file ? { file: at.file } : {}) });
}

/**
 * The note for an export whose GenAI spans carry no content at all (no input, output, tool arguments
 * or results: content capture is opt-in in the GenAI conventions), at the first such span; undefined
 * when some span carries content, or no span is a GenAI operation.
 */
function noContent(spans: readonly ImportSpan[]): { severity: 'info'; message: string; ordinal: number } | undefined {
  const genAi = spans.filter((s) => s.role === 'llm' || s.role === 'agent' || s.role === 'tool');
  if (!genAi.length || spans.some((s) => s.role !== 'other' && (s.input !== undefined || s.output !== undefined))) return undefined;
  return {
    severity: 'info',
    message: `inputs and outputs are not in this file: none of its ${genAi.length} GenAI span${genAi.length > 1 ? 's carries' : ' carries'} prompts, completions, tool arguments or results (capturing them is opt-in in the OpenTelemetry GenAI conventions; they may be in a logs file of the same export); messages and tool calls are shown without content`,
    ordinal: genAi[0].ordinal,
  };
}

/** What a file holds besides its spans: records that are not spans (by kind, first one's range), GitHub Copilot Chat's export header. */
interface FileFacts {
  notSpans: Record<string, number>;
  firstNotSpan?: Range;
  /** The `copilotChat` object of an Agent Debug Log export (session id and title, export time). */
  copilotChat: Record<string, unknown> | undefined;
}

/** Services and instrumentation scopes GitHub Copilot writes spans under (Copilot Chat in VS Code; Copilot CLI and SDK). */
const COPILOT_SOURCES = /^(copilot-chat|github-copilot|github\.copilot)$/;

/**
 * GitHub Copilot's figures when the spans are Copilot's (its service or scope names, or its own
 * `github.copilot.*` / `copilot_chat.*` attributes): conversation ids and the export's session; else undefined.
 */
function copilotFacts(read: OtlpSpan[], file: FileFacts): Record<string, unknown> | undefined {
  const isCopilot = (r: OtlpSpan) =>
    COPILOT_SOURCES.test(r.span.service ?? '') || COPILOT_SOURCES.test(r.scope ?? '') || Object.keys(r.attrs).some((k) => k.startsWith('github.copilot.') || k.startsWith('copilot_chat.'));
  if (!file.copilotChat && !read.some(isCopilot)) return undefined;
  const conversations = [...new Set(read.map((r) => str(r.attrs['gen_ai.conversation.id']) ?? str(r.attrs['copilot_chat.chat_session_id'])).filter((x): x is string => !!x))];
  const out: Record<string, unknown> = { conversation_ids: conversations };
  if (file.copilotChat) out.export = file.copilotChat;
  return out;
}

/** One info, at the first of them, for the records that are not spans (metrics, logs: a file exporter writes every signal to one file). */
function reportNotSpans(file: FileFacts, b: ImportBuilder): void {
  const kinds = Object.entries(file.notSpans);
  if (!kinds.length || !file.firstNotSpan) return;
  const n = kinds.reduce((a, [, c]) => a + c, 0);
  b.problem('info', `${n} record${n > 1 ? 's are' : ' is'} not spans (${kinds.map(([k, c]) => `${k} ${c}`).join(', ')}); not shown`, file.firstNotSpan);
}

/**
 * Walks resourceSpans[].scopeSpans[].spans[] of one document; a document (or line) that is one
 * span as an OpenTelemetry SDK serializes it (a file exporter's line: GitHub Copilot CLI's
 * `{"type":"span", ...}`, Copilot Chat's `{traceId, spanId, startTime: [s, ns], ...}`) is read as
 * that span; log records (OTLP `resourceLogs`, SDK-serialized) go to `c.logs`; metric and other records are counted in `c.file.notSpans`.
 */
function collectSpans(doc: JsonDocument, c: Collected): void {
  const root = doc.root;
  if (!root) return;
  const roots = root.type === 'array' ? items(root) : [root];
  for (const r of roots) {
    const rss = propertyOf(r, 'resourceSpans', 'resource_spans');
    if (!rss) {
      const from = c.logs.length;
      if (readLogsExport(doc, r, c.logs, c.path)) {
        countPlainLogs(c, from);
        continue;
      }
      if (r.type === 'object') readRecord(doc, r, c);
      continue;
    }
    const ext = propertyOf(r, 'copilotChat');
    if (ext) {
      const v = sharedValueIn(doc, ext);
      if (isObject(v)) c.file.copilotChat = v;
    }
    for (const rs of items(rss)) {
      const resource = sharedValueIn(doc, propertyOf(rs, 'resource'));
      const service = isObject(resource) ? attributes(resource.attributes)['service.name'] : undefined;
      for (const ss of items(propertyOf(rs, 'scopeSpans', 'scope_spans', 'instrumentationLibrarySpans', 'instrumentation_library_spans'))) {
        const scope = sharedValueIn(doc, propertyOf(ss, 'scope', 'instrumentationLibrary', 'instrumentation_library'));
        const scopeName = isObject(scope) ? str(scope.name) : undefined;
        for (const node of items(propertyOf(ss, 'spans'))) readSpan(doc, node, typeof service === 'string' ? service : undefined, scopeName, c, false);
      }
    }
  }
}

/** True for a value that is one SDK-serialized span (see {@link collectSpans}). */
function isFlatSpan(v: Record<string, unknown>): boolean {
  if (v.type === 'span') return true;
  const hasId = typeof v.spanId === 'string' || isObject(v._spanContext) || isObject(v.spanContext);
  return hasId && typeof v.name === 'string' && (Array.isArray(v.startTime) || Array.isArray(v.endTime));
}

/** The kind of a record that is not a span or a log record: `metric`, or `other`. */
function notSpanKind(v: Record<string, unknown>): string {
  if (v.type === 'metric' || 'resourceMetrics' in v || 'scopeMetrics' in v || 'descriptor' in v || 'dataPoints' in v) return 'metric';
  return typeof v.type === 'string' ? `other (${v.type.slice(0, 40)})` : 'other';
}

/** One top-level record without `resourceSpans`: a flat span, a flat log record, or a record counted as not a span. */
function readRecord(doc: JsonDocument, node: Node, c: Collected): void {
  const v = sharedValueIn(doc, node);
  if (!isObject(v)) return;
  if (isFlatSpan(v)) {
    readSpan(doc, node, undefined, undefined, c, true);
    return;
  }
  if (isFlatLog(v)) {
    readLogRecord(doc, node, c.logs, c.path);
    countPlainLogs(c, c.logs.length - 1);
    return;
  }
  if (c.path) return; // records of a sibling file that are neither are its own business
  addTo(c.file.notSpans, notSpanKind(v));
  c.file.firstNotSpan ??= nodeRange(doc, node);
}

/** Counts the log records from `c.logs[from]` on that are not GenAI events (not shown) in `notSpans` as `log`; a sibling file's are not counted. */
function countPlainLogs(c: Collected, from: number): void {
  if (c.path) return;
  for (let i = Math.max(0, from); i < c.logs.length; i++) {
    if (isGenAiEvent(c.logs[i].event.name)) continue;
    addTo(c.file.notSpans, 'log');
    c.file.firstNotSpan ??= c.logs[i].range;
  }
}

/** True for an OTLP status code that means error (2, "STATUS_CODE_ERROR", "ERROR", any case). */
function isErrorCode(code: unknown): boolean {
  return code === 2 || code === '2' || (typeof code === 'string' && /^(status_code_)?error$/i.test(code));
}

/** A parent id, or undefined for none: absent, empty, or all zeros (how SDKs write a root's parent). */
function parentIdOf(v: unknown): string | undefined {
  const id = idOf(v);
  return id && !/^0+$/.test(id) ? id : undefined;
}

/**
 * A span's own error: an ERROR status, `error.type`, a hook's `copilot_chat.hook_result_kind`
 * error, or a non-zero `process.exit.code` (GitHub Copilot CLI: a shell tool that ran but whose
 * command failed); undefined when it did not fail.
 */
function spanError(attrs: Record<string, unknown>, status: Record<string, unknown> | undefined): string | undefined {
  const errorStatus = status && isErrorCode(status.code);
  const errorType = str(attrs['error.type']);
  if (errorStatus || errorType) return str(status?.message) || errorType || 'error';
  if (attrs['copilot_chat.hook_result_kind'] === 'error') return str(attrs['copilot_chat.hook_output']) || 'hook error';
  const exit = attrs['process.exit.code'];
  if (typeof exit === 'number' && exit !== 0) return `exit code ${exit}`;
  return undefined;
}

/** Reads one span into `c.spans` (@param sdk true for a span as an OpenTelemetry SDK serializes it, not OTLP/JSON); a span that cannot be read is a positioned problem. */
function readSpan(doc: JsonDocument, node: Node, service: string | undefined, scope: string | undefined, c: Collected, sdk: boolean): void {
  const spans = c.spans;
  const ordinal = spans.length;
  const range = nodeRange(doc, node);
  const problem = (severity: 'error' | 'warning', message: string) => c.b.problems.push({ severity, message, range, ...(c.path ? { file: c.path } : {}) });
  if (!isComplete(doc, node)) {
    problem('error', `span ${ordinal} is cut off; skipped`);
    return;
  }
  const v = sharedValueIn(doc, node);
  if (!isObject(v)) {
    problem('error', `span ${ordinal} must be an object; skipped`);
    return;
  }
  // An SDK-serialized span keeps its ids in a span context (older serializations) and its times as HrTime.
  const context = isObject(v._spanContext) ? v._spanContext : isObject(v.spanContext) ? v.spanContext : undefined;
  const parentContext = isObject(v.parentSpanContext) ? v.parentSpanContext : undefined;
  const spanId = idOf(v.spanId ?? v.span_id ?? context?.spanId);
  if (!spanId) {
    problem('error', `span ${ordinal} has no "spanId"; skipped`);
    return;
  }
  const attrs = attributes(v.attributes);
  const status = isObject(v.status) ? v.status : undefined;
  const errorStatus = status && isErrorCode(status.code);
  const errorType = str(attrs['error.type']);
  const start = hrNanos(v.startTimeUnixNano ?? v.start_time_unix_nano ?? v.startTime);
  const end = hrNanos(v.endTimeUnixNano ?? v.end_time_unix_nano ?? v.endTime);
  if (service === undefined && isObject(v.resource)) {
    const name = attributes(v.resource.attributes)['service.name'];
    if (typeof name === 'string') service = name;
  }
  if (scope === undefined && isObject(v.instrumentationScope)) scope = str(v.instrumentationScope.name);
  if (start === undefined) problem('warning', `span ${spanId} has no start time; placed at its parent's start`);
  const events: SpanEvent[] = [];
  if (Array.isArray(v.events)) {
    for (const e of v.events) if (isObject(e)) events.push({ name: str(e.name) ?? '', time: hrNanos(e.timeUnixNano ?? e.time_unix_nano ?? e.time ?? e.timestamp), attrs: attributes(e.attributes) });
  }
  const links: ImportSpan['links'] = [];
  if (Array.isArray(v.links)) {
    for (const l of v.links) {
      const lc = isObject(l) && isObject(l.context) ? l.context : l; // an SDK link: {context: {traceId, spanId}, attributes}
      const linked = isObject(lc) ? idOf(lc.spanId ?? lc.span_id) : undefined;
      if (isObject(l) && isObject(lc) && linked) links.push({ traceId: idOf(lc.traceId ?? lc.trace_id) ?? '', spanId: linked, attributes: attributes(l.attributes) });
    }
  }
  for (const e of events) if (e.name === 'exception' && !errorType && !errorStatus) attrs['error.type'] ??= e.attrs['exception.type'];
  const name = str(v.name) ?? '';
  const kind = spanKindOf(v.kind, sdk);
  const g = { ...genAiSpan(attrs, name), ...a2aRole(attrs, kind) };
  const origin: Origin = c.path ? { range, record: ordinal, file: c.path } : { range, record: ordinal };
  spans.push({
    attrs,
    events,
    content: { toolCalls: [], toolResults: [] },
    status,
    kind,
    scope,
    span: {
      ordinal,
      origin,
      traceId: idOf(v.traceId ?? v.trace_id ?? context?.traceId) ?? '',
      spanId,
      id: spanId,
      parentSpanId: parentIdOf(v.parentSpanId ?? v.parent_span_id ?? parentContext?.spanId),
      start,
      end,
      links,
      name,
      ...g,
      error: spanError(attrs, status),
      service,
    },
  });
}

/**
 * The spans with their tool calls' arguments and results: a tool span's own attributes and events
 * first, else what a model output asked for under its call id (arguments) and what was fed back to a
 * model under that id (result).
 */
function withToolContent(read: OtlpSpan[]): ImportSpan[] {
  const argsById = new Map<string, string>();
  const resultById = new Map<string, string>();
  for (const r of read) {
    for (const c of r.content.toolCalls) if (c.id && c.arguments !== undefined && !argsById.has(c.id)) argsById.set(c.id, c.arguments);
    for (const x of r.content.toolResults) if (x.id && !resultById.has(x.id)) resultById.set(x.id, x.content);
  }
  return read.map(({ span, attrs, content }) => {
    if (span.role !== 'tool') return span;
    const callId = str(attrs['gen_ai.tool.call.id']);
    const args = attrs['gen_ai.tool.call.arguments'] ?? attrs['tool.parameters'] ?? (callId ? argsById.get(callId) : undefined);
    const result = attrs['gen_ai.tool.call.result'] ?? content.toolResults[0]?.content ?? content.output ?? (callId ? resultById.get(callId) : undefined);
    return { ...span, input: args !== undefined ? asText(args) : content.input, output: asText(result), extra: callId ? { tool_call_id: callId } : undefined };
  });
}

/** One info for the spans that are the serving side of a remote agent call (./otel-agent-calls.ts), at the first. */
function servingNote(read: readonly OtlpSpan[], n: number): { severity: 'info'; message: string; ordinal: number }[] {
  const first = read.find((r) => r.span.passThrough);
  if (!n || !first) return [];
  return [{ severity: 'info', message: `${n} span${n > 1 ? 's are' : ' is'} the serving side of a remote agent call (an A2A server span, an invoke_agent under an invoke_agent CLIENT or A2A call of the same agent): each call is drawn once, as the caller recorded it`, ordinal: first.span.ordinal }];
}

/** One info when spans carry their GenAI content in span events (older per-message events, or the newer operation-details event). */
function spanEventNote(read: OtlpSpan[]): { severity: 'info'; message: string; ordinal: number }[] {
  const fromEvents = read.filter((r) => r.events.some((e) => isContentEvent(e.name)));
  if (!fromEvents.length) return [];
  const older = fromEvents.some((r) => r.events.some((e) => e.name !== 'gen_ai.client.inference.operation.details' && isContentEvent(e.name)));
  const newer = fromEvents.some((r) => r.events.some((e) => e.name === 'gen_ai.client.inference.operation.details'));
  const which = older && newer ? 'older per-message events and the newer operation-details event' : newer ? 'the operation-details event' : 'older per-message events';
  const n = fromEvents.length;
  return [{ severity: 'info', message: `${n} span${n > 1 ? 's carry' : ' carries'} GenAI content in span events (${which}); read as well as attributes`, ordinal: fromEvents[0].span.ordinal }];
}

/** Finish reasons as recorded: the span attribute, else what its events record. */
function finishReasons(a: Record<string, unknown>, content: SpanContent | undefined): string[] | undefined {
  const v = a['gen_ai.response.finish_reasons'] ?? a['llm.finish_reason'];
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string') return v.startsWith('[') ? (safeJson(v) as string[] | undefined) ?? [v] : [v];
  return content?.finishReasons;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** OTLP JSON: an object (or a line of one) with `resourceSpans`, or `resourceLogs` of GenAI events; or JSON Lines of SDK-serialized spans. */
export const otelFormat: TraceFormat = {
  id: OTEL_FORMAT,
  label: 'OpenTelemetry GenAI spans (OTLP JSON / JSON Lines)',
  keys: ['resourceSpans', 'resource_spans', 'resourceLogs', 'resource_logs', 'spanId'],
  detect(text) {
    const head = text.slice(0, 1 << 16);
    if (!/^\s*[[{]/.test(head)) return false;
    if (/"(resourceSpans|resource_spans)"\s*:/.test(head)) return true;
    // a logs export of GenAI events (its spans are in the traces file beside it)
    if (/"(resourceLogs|resource_logs)"\s*:/.test(head) && /"gen_ai\./.test(head)) return true;
    // a file exporter's JSON Lines of SDK-serialized spans (GitHub Copilot CLI, Copilot Chat)
    return /^\s*\{/.test(head) && /"spanId"\s*:/.test(head) && (/"type"\s*:\s*"span"/.test(head) || /"(startTime|endTime)"\s*:\s*\[\s*\d/.test(head));
  },
  read: (text, fileName, files) => readOtel(text, fileName, files),
};

registerFormat(otelFormat, true);
