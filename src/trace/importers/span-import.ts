/**
 * What every reader of a backend or framework span export shares (Jaeger, Zipkin, Langfuse, Phoenix,
 * LangSmith, OpenAI Agents SDK, agent-observability documents): a format-neutral span ({@link ImportSpan},
 * its role already decided by the reader) and {@link buildSpanTrace}, which turns the spans of one
 * file into events on agent lanes with typed edges, on the span-tree core (`../span-tree.ts`: parentage
 * from parent ids only, links, clock skew, open spans, orphans, parent cycles; docs/model.md "Span trees").
 *
 * Span role -> events (ids = the span id; derived events `<id>.return` / `.result` / `.stop`):
 * - spawn (GenAI `create_agent`): `spawn` (creator's lane -> the created agent), and a `spawn` edge to
 *   the created agent's first invocation;
 * - agent: `delegate` at start (caller lane -> agent), `return` at end (agent -> caller), and `stop` at
 *   end when the span failed (error; max_turns when the error says a recursion / turn limit was hit) or
 *   records finish reasons (as in the OTLP reader); with `outerStopScope: 'turn'` each outermost agent
 *   span's end is a turn end (`scope: "turn"`);
 * - handoff: `delegate` from the handing-off agent to the receiving one (no return: control moved);
 *   the receiving agent's next agent span is delegated by the handing-off agent, joined by a `causal` edge
 *   (a tool call that passes control, GenAI `gen_ai.transfer.mode` pass_control, does the same);
 * - tool: `tool_call` at start and `tool_result` at end (an open span: `call_status: no_result`); a
 *   hook span (`execute_hook`, GitHub Copilot's `hook <type>`) is a tool call of tool `hook:<type>`;
 * - llm: `message` (tokens, model); event: `message` at its time; chain: `orchestrator_decision`;
 *   guardrail: `safety_event`; other: no event, counted by label in one warning, children pass through.
 * Lane: the span's own agent, else its parent's lane, else the span's service, else `agent`. The caller of an
 * agent span: the agent that handed off to it, else its recorded caller, else its parent's lane, else (a
 * root) the lane of the span it links to in another trace of the file, else its service or `user`.
 * Time: t = seconds since the earliest span start; duration_s = end - start (exact, from ns bigints).
 * Edges: parent event -> child event `causal`; delegate -> return, tool_call -> tool_result `return`;
 * a link (Jaeger FOLLOWS_FROM, extra parents) -> `link`.
 * Every span reader builds on it (the OTLP reader ./otel.ts too), so one span means the same in every format.
 */
import { LineIndex, type LoadedTrace, type Origin, type Range } from '../model';
import type { StopReason, TokenUsage, TraceEdge, TraceEvent } from '../schema';
import { buildSpanTree, type SpanNode, type SpanTree } from '../span-tree';
import { firstJsonLines } from '../formats';
import { parseJsonDocument, type JsonDocument } from '../json-positions';
import { ImportBuilder, baseName } from './json-import';
import { ms, stopReasonOf } from './otel-content';
import { addTo } from '../counts';
import { usageFrom } from '../tokens';

/** What a span stands for in the trace model. */
export type SpanRole = 'agent' | 'spawn' | 'handoff' | 'tool' | 'llm' | 'event' | 'chain' | 'guardrail' | 'other';

/** One span as a reader hands it over. Times (start, end from {@link SpanNode}) in ns since the epoch. */
export interface ImportSpan extends SpanNode {
  /** 0-based ordinal of the span record in the file (the event origins' `record`). */
  ordinal: number;
  /** Range of the span record in the file. */
  origin: Origin;
  /** Event id (the span id; a repeated id gets `~n`, set by {@link buildSpanTrace}). */
  id: string;
  name: string;
  role: SpanRole;
  /** The span's own agent (lane) name, when it names one. */
  agent?: string;
  /** Service / process / workflow name: the lane of last resort. */
  service?: string;
  tool?: string;
  /** Input and output as text (JSON text for structured values). */
  input?: string;
  output?: string;
  /** Tokens of a model call when the format records only their sum (no kinds). */
  tokens?: number;
  /** Tokens of a model call by kind; the event's own `tokens` are then its output. */
  usage?: TokenUsage;
  model?: string;
  /** US dollars the exporter recorded for the span's own model call (its event's `cost`); never an estimate of ours. */
  cost?: number;
  /** Error message when the span failed. */
  error?: string;
  finishReasons?: string[];
  /** handoff (or a tool call that passes control, a GenAI transfer): the agents control passes between. */
  handoffFrom?: string;
  handoffTo?: string;
  /** The agent that made this call, when the span records it (GenAI `gen_ai.caller.name`): the caller of an agent span instead of its parent's lane. */
  caller?: string;
  /** other: a span that stands for work another span already shows (the serving side of a remote call): no event, not counted as skipped; children pass through. */
  passThrough?: boolean;
  /** other: the label it is counted under in the skipped-span warning (default: its name). */
  skipLabel?: string;
  /** Extra fields kept on the start event (e.g. `span_kind`). */
  extra?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string, a number as its decimal text, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** A finite non-negative number (or numeric string), else undefined. */
export function num(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** A value as event content: strings as they are, other JSON values as JSON text, null/undefined as undefined. */
export function text(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Nanoseconds since the epoch from an ISO 8601 date-time (fraction to 9 digits kept exactly; no zone
 * means UTC, as LangSmith writes it), or from a number / numeric string in `unit` ('us' Jaeger/Zipkin,
 * 'ms', 's', 'ns'). Undefined when absent or unreadable.
 */
export function timeNs(v: unknown, unit: 'ns' | 'us' | 'ms' | 's' = 'ms'): bigint | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
    if (unit === 'ns') return BigInt(Math.round(v));
    const us = unit === 'us' ? v : unit === 'ms' ? v * 1e3 : v * 1e6;
    return BigInt(Math.round(us)) * 1000n;
  }
  if (typeof v !== 'string' || v === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return unit === 'ns' && /^\d+$/.test(v) ? BigInt(v) : timeNs(Number(v), unit);
  const m = /^(\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d)?)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$/i.exec(v.trim());
  if (!m) return undefined;
  const ms = Date.parse(`${m[1].replace(' ', 'T')}${m[3] ? (m[3].toUpperCase() === 'Z' ? 'Z' : m[3]) : 'Z'}`);
  if (Number.isNaN(ms)) return undefined;
  const frac = (m[2] ?? '').slice(0, 9).padEnd(9, '0');
  return BigInt(ms) * 1_000_000n + BigInt(frac);
}

/** A nested attribute object flattened to dotted keys (`{llm: {model_name: x}}` -> `llm.model_name`); arrays of objects get their index. */
export function flatten(v: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out);
  } else if (Array.isArray(v) && v.some((x) => isObject(x))) {
    v.forEach((x, i) => flatten(x, `${prefix}.${i}`, out));
  } else if (prefix) out[prefix] = v;
  return out;
}

/**
 * The tokens of a span's event: its `usage` by kind and its own `tokens`, the output (the context it
 * read is the call's, in `usage`); the recorded sum when the format records no kinds.
 */
function ownTokens(s: ImportSpan): Pick<TraceEvent, 'tokens' | 'usage'> {
  if (s.usage) return { usage: s.usage, ...(s.usage.output !== undefined ? { tokens: s.usage.output } : {}) };
  return s.tokens !== undefined ? { tokens: s.tokens } : {};
}

/**
 * US dollars an exporter recorded for one call: its `total`, else the sum of its parts (input and
 * output costs) when any is recorded; undefined when none is a finite non-negative number.
 */
export function recordedCost(total: unknown, ...parts: unknown[]): number | undefined {
  const whole = num(total);
  if (whole !== undefined) return whole;
  const known = parts.map(num).filter((x): x is number => x !== undefined);
  return known.length ? known.reduce((a, b) => a + b, 0) : undefined;
}

/**
 * The role, agent, tool, model and tokens that GenAI (gen_ai.*) and OpenInference attributes give a
 * span, by the same rules as the OTLP reader: gen_ai.operation.name (invoke_agent, execute_tool, chat, ...)
 * or openinference.span.kind (AGENT, TOOL, LLM, CHAIN, ...). `attrs` are flat dotted keys. Also
 * (semantic-conventions-genai): `plan` is a step of its agent (chain); memory operations are tool
 * calls; an `execute_tool` with `gen_ai.transfer.mode` pass_control hands off to `gen_ai.transfer.target.name`.
 */
export function genAiSpan(attrs: Record<string, unknown>, name: string): Pick<ImportSpan, 'role' | 'agent' | 'tool' | 'model' | 'tokens' | 'usage' | 'cost' | 'input' | 'output' | 'skipLabel' | 'handoffTo'> {
  const op = str(attrs['gen_ai.operation.name']);
  const oi = str(attrs['openinference.span.kind'])?.toUpperCase();
  let role: SpanRole = 'other';
  if (op === 'create_agent') role = 'spawn';
  else if (op === 'invoke_agent' || oi === 'AGENT') role = 'agent';
  else if (op === 'execute_tool' || op === 'retrieval' || oi === 'TOOL' || oi === 'RETRIEVER' || oi === 'RERANKER') role = 'tool';
  else if (op === 'execute_hook' || (!op && hookType(attrs) !== undefined)) role = 'tool';
  else if (op === 'chat' || op === 'generate_content' || op === 'text_completion' || op === 'embeddings' || oi === 'LLM' || oi === 'EMBEDDING') role = 'llm';
  else if (op === 'invoke_workflow' || op === 'plan' || oi === 'CHAIN') role = 'chain';
  else if (op !== undefined && MEMORY_OPERATIONS.has(op)) role = 'tool';
  else if (oi === 'GUARDRAIL') role = 'guardrail';
  let agent = str(attrs['gen_ai.agent.name']) || str(attrs['agent.name']) || str(attrs['gen_ai.agent.id']);
  // A span named only by its operation (`invoke_agent`: GitHub Copilot's session wrapper) names no agent: its lane is its parent's, else its service.
  if (!agent && (role === 'agent' || role === 'spawn')) agent = /^(?:invoke_agent|create_agent)\s+(.+)$/.exec(name)?.[1] ?? (role === 'agent' && name !== 'invoke_agent' ? name || undefined : undefined);
  const hook = role === 'tool' ? hookType(attrs) ?? (op === 'execute_hook' ? name.replace(/^execute_hook\s*/, '') || 'hook' : undefined) : undefined;
  const tool = role !== 'tool' ? undefined : hook !== undefined ? `hook:${hook}` : op !== undefined && MEMORY_OPERATIONS.has(op) ? `memory:${op}` : str(attrs['gen_ai.tool.name']) ?? str(attrs['tool.name']) ?? (name.replace(/^execute_tool\s+/, '') || 'tool');
  const model = str(attrs['gen_ai.request.model']) ?? str(attrs['gen_ai.response.model']) ?? str(attrs['llm.model_name']);
  const input = num(attrs['gen_ai.usage.input_tokens']) ?? num(attrs['gen_ai.usage.prompt_tokens']) ?? num(attrs['llm.token_count.prompt']);
  const output = num(attrs['gen_ai.usage.output_tokens']) ?? num(attrs['gen_ai.usage.completion_tokens']) ?? num(attrs['llm.token_count.completion']);
  const cacheRead = num(attrs['gen_ai.usage.cache_read.input_tokens']) ?? num(attrs['gen_ai.usage.cache_read_input_tokens']) ?? num(attrs['llm.token_count.prompt_details.cache_read']);
  // semconv-genai renamed cache_creation to cache_write; reasoning_tokens is GitHub Copilot Chat's own key
  const cacheWrite = num(attrs['gen_ai.usage.cache_write.input_tokens']) ?? num(attrs['gen_ai.usage.cache_creation.input_tokens']) ?? num(attrs['gen_ai.usage.cache_creation_input_tokens']) ?? num(attrs['llm.token_count.prompt_details.cache_write']);
  const reasoning = num(attrs['gen_ai.usage.reasoning.output_tokens']) ?? num(attrs['gen_ai.usage.reasoning_tokens']) ?? num(attrs['llm.token_count.completion_details.reasoning']);
  // GenAI and OpenInference count the cached input in the input
  const usage = usageFrom({ input, output, cache_read: cacheRead, cache_write: cacheWrite, reasoning }, true);
  const tokens = usage ? undefined : num(attrs['llm.token_count.total']);
  const cost = role === 'llm' ? recordedCost(attrs['llm.cost.total'], attrs['llm.cost.prompt'], attrs['llm.cost.completion']) : undefined;
  const inText = text(attrs['gen_ai.tool.call.arguments'] ?? attrs['tool.parameters'] ?? attrs['input.value'] ?? attrs['gen_ai.prompt']);
  const outText = text(attrs['gen_ai.tool.call.result'] ?? attrs['output.value'] ?? attrs['gen_ai.completion']);
  // A tool call that passes control to another agent (a GenAI transfer): a handoff from the agent that made it.
  const passes = role === 'tool' && str(attrs['gen_ai.transfer.mode']) === 'pass_control' ? str(attrs['gen_ai.transfer.target.name']) : undefined;
  return { role, agent, tool, model, tokens, usage, ...(cost !== undefined ? { cost } : {}), input: inText, output: outText, skipLabel: op ?? (oi ? `openinference:${oi}` : undefined), ...(passes ? { handoffTo: passes } : {}) };
}

/** GenAI memory operations (semantic-conventions-genai `gen_ai.memory.client`): tool calls of tool `memory:<operation>`. */
const MEMORY_OPERATIONS = new Set(['create_memory_store', 'search_memory', 'create_memory', 'update_memory', 'upsert_memory', 'delete_memory', 'delete_memory_store']);

/**
 * The hook a span runs, when it is a hook span: GitHub Copilot CLI's `hook <type>` spans
 * (`github.copilot.hook.type`), GitHub Copilot Chat's `execute_hook` spans (`copilot_chat.hook_type`).
 */
function hookType(attrs: Record<string, unknown>): string | undefined {
  return str(attrs['github.copilot.hook.type']) ?? str(attrs['copilot_chat.hook_type']);
}

/**
 * Calls `fn` with each JSON document of the file: one per non-blank line for JSON Lines (two or more
 * lines that each parse as an object), else the whole text.
 */
export function forEachDocument(text: string, lines: LineIndex, fn: (doc: JsonDocument) => void): void {
  const head = firstJsonLines(text, 2);
  if (!(head.length === 2 && isObject(head[0]))) return fn(parseJsonDocument(text, lines));
  for (let n = 0; n < lines.lineCount; n++) {
    const start = lines.lineStart(n);
    const end = n + 1 < lines.lineCount ? lines.lineStart(n + 1) - 1 : text.length;
    const line = text.slice(start, end);
    if (line.trim() === '') continue;
    fn(parseJsonDocument(line, lines, start));
  }
}

/** Options of {@link buildSpanTrace}. */
export interface SpanTraceOptions {
  /** Format id of the result (e.g. `jaeger`). */
  format: string;
  /** Key of the format's figures under `metadata` (e.g. `jaeger`). */
  metaKey: string;
  /** Word for a span in messages ("span", "observation", "run"). */
  noun?: string;
  /** Trace-level fields to add (name, metadata of the trace record, ...). */
  header?: Record<string, unknown>;
  /** Extra figures for metadata[metaKey]. */
  figures?: Record<string, unknown>;
  /** `metadata.source` (default: the format id). */
  source?: string;
  /** Why skipped spans are not shown, in their warning (default: "no agent, tool, model or step role"). */
  skipWhy?: string;
  /** Format-specific notes, reported after the tree's warnings and before the skipped spans' one, at their span's record. */
  notes?: { severity: 'info' | 'warning'; message: string; ordinal: number }[];
  /** Read a failed agent's error text for a turn / recursion limit (stop reason max_turns; default true). */
  maxTurnsFromError?: boolean;
  /**
   * `turn`: each outermost agent span is one turn of a chat (GitHub Copilot: one `invoke_agent` per
   * request), so the stop at its end is a turn end (`scope: "turn"`, handed back to the user), never
   * the run's verdict; inner (sub-agent) spans' stops are left as they are.
   */
  outerStopScope?: 'turn';
}

/**
 * The agent span that ends each trace's run: of the closed agent spans inside no other agent span,
 * the one that ends last (per trace id). Span exports record no stop decision; this span's end is
 * where the run stopped (its `stop` gets reason `unknown` when no finish reason or error says why).
 * A trace whose outermost agent span is still open gets none: it had not stopped when written.
 */
function finalAgentSpans(spans: ImportSpan[], parentOf: (s: ImportSpan) => ImportSpan | undefined, open: (ordinal: number) => boolean): Set<ImportSpan> {
  const isAgent = (s: ImportSpan) => s.role === 'agent' || s.role === 'spawn';
  const last = new Map<string, ImportSpan>();
  const openOuter = new Set<string>();
  for (const s of spans) {
    if (s.role !== 'agent') continue;
    let inner = false;
    for (let p = parentOf(s); p && !inner; p = parentOf(p)) inner = isAgent(p);
    if (inner) continue;
    if (open(s.ordinal) || s.end === undefined) openOuter.add(s.traceId);
    else if (!last.has(s.traceId) || s.end > last.get(s.traceId)!.end!) last.set(s.traceId, s);
  }
  return new Set([...last].filter(([traceId]) => !openOuter.has(traceId)).map(([, s]) => s));
}

/** The agent spans inside no other agent span (each a turn, when a file's outermost agent spans are turns). */
function outerAgentSpans(spans: ImportSpan[], parentOf: (s: ImportSpan) => ImportSpan | undefined): Set<ImportSpan> {
  const out = new Set<ImportSpan>();
  for (const s of spans) {
    if (s.role !== 'agent') continue;
    let inner = false;
    for (let p = parentOf(s); p && !inner; p = parentOf(p)) inner = p.role === 'agent' || p.role === 'spawn';
    if (!inner) out.add(s);
  }
  return out;
}

/**
 * Builds the trace of `spans` (in file order, ordinals 0..n-1) into `b` and finishes it.
 * Problems (repeated ids, cycles, skew, orphans, open spans, several traces, skipped spans) are
 * reported positioned at the span records; never throws for bad content.
 * `metadata[metaKey]` = { trace_ids, services, spans, skipped_spans {label: count}, missing_parents, cut_parent_edges, ...figures }.
 */
export function buildSpanTrace(spans: ImportSpan[], b: ImportBuilder, fileName: string, opts: SpanTraceOptions): LoadedTrace {
  const noun = opts.noun ?? 'span';
  const seen = new Map<string, number>();
  for (const s of spans) {
    const n = seen.get(s.spanId) ?? 0;
    seen.set(s.spanId, n + 1);
    if (n > 0) {
      s.id = `${s.spanId}~${n}`;
      b.problem('warning', `${noun} id ${s.spanId} appears ${n + 1} times; this one is "${s.id}"`, s.origin.range);
    }
  }
  const tree = buildSpanTree(spans);
  const parentOf = (s: ImportSpan): ImportSpan | undefined => {
    const p = tree.parent[s.ordinal];
    return p === undefined ? undefined : spans[p];
  };
  let t0: bigint | undefined;
  for (const s of spans) if (s.start !== undefined && (t0 === undefined || s.start < t0)) t0 = s.start;
  const seconds = (ns: bigint | undefined): number => (ns === undefined || t0 === undefined ? 0 : Math.max(0, Number(ns - t0) / 1e9));
  // Each span's effective start in seconds, once (bigint arithmetic allocates on every call).
  const startS = spans.map((s) => seconds(tree.effectiveStart[s.ordinal]));

  const rootOfTrace = new Map<string, ImportSpan>();
  for (const s of spans) if (tree.parent[s.ordinal] === undefined && tree.orphanOf[s.ordinal] === undefined && !rootOfTrace.has(s.traceId)) rootOfTrace.set(s.traceId, s);
  const laneMemo = new Map<ImportSpan, string>();
  const lane = (s: ImportSpan): string => {
    const chain: ImportSpan[] = [];
    let found: string | undefined;
    for (let cur: ImportSpan | undefined = s; cur; cur = parentOf(cur)) {
      const memo = laneMemo.get(cur);
      if (memo) {
        found = memo;
        break;
      }
      chain.push(cur);
      if (cur.agent) {
        found = cur.agent;
        break;
      }
      if (!parentOf(cur) && tree.orphanOf[cur.ordinal] !== undefined) {
        const root = rootOfTrace.get(cur.traceId);
        if (root && root !== cur) {
          found = laneMemo.get(root) ?? root.agent ?? root.service;
          break;
        }
      }
    }
    const l = found ?? s.service ?? 'agent';
    for (const c of chain) laneMemo.set(c, l);
    return l;
  };
  const mapped = (s: ImportSpan): boolean => s.role !== 'other';
  const placeholderOf = (s: ImportSpan): string | undefined => {
    const m = tree.orphanOf[s.ordinal];
    return m === undefined ? undefined : `missing:${tree.missing[m].spanId}`;
  };
  const mappedAncestor = (s: ImportSpan): string | undefined => {
    let c = s;
    for (let p = parentOf(s); p; c = p, p = parentOf(p)) if (mapped(p)) return p.id;
    return placeholderOf(c);
  };
  const usageBelow = new Set<ImportSpan>();
  const costBelow = new Set<ImportSpan>();
  for (const s of spans) {
    if (s.tokens !== undefined || s.usage !== undefined) for (let p = parentOf(s); p && !usageBelow.has(p); p = parentOf(p)) usageBelow.add(p);
    if (s.cost !== undefined) for (let p = parentOf(s); p && !costBelow.has(p); p = parentOf(p)) costBelow.add(p);
  }
  // Handoffs, in time order: the receiving agent's next agent span is delegated by the handing-off agent.
  const handoffs = spans.filter((s) => (s.role === 'handoff' || s.role === 'tool') && s.handoffTo).sort((x, y) => startS[x.ordinal] - startS[y.ordinal] || x.ordinal - y.ordinal);
  const handedBy = new Map<ImportSpan, ImportSpan>();
  const agentSpans = spans.filter((s) => s.role === 'agent').sort((x, y) => startS[x.ordinal] - startS[y.ordinal] || x.ordinal - y.ordinal);
  const byAgent = new Map<string, ImportSpan[]>();
  for (const a of agentSpans) if (a.agent) (byAgent.get(a.agent) ?? byAgent.set(a.agent, []).get(a.agent)!).push(a);
  const cursor = new Map<string, number>();
  for (const h of handoffs) {
    const th = startS[h.ordinal];
    const list = byAgent.get(h.handoffTo!) ?? [];
    let k = cursor.get(h.handoffTo!) ?? 0;
    while (k < list.length && (handedBy.has(list[k]) || startS[list[k].ordinal] < th)) k++;
    cursor.set(h.handoffTo!, k);
    if (k < list.length) handedBy.set(list[k], h);
  }
  const linkedFrom = new Map<number, ImportSpan>();
  for (const l of tree.links) if (l.to !== undefined && !linkedFrom.has(l.from) && spans[l.to].traceId !== spans[l.from].traceId) linkedFrom.set(l.from, spans[l.to]);
  const callerOf = (s: ImportSpan): string => {
    const h = handedBy.get(s);
    if (h) return h.handoffFrom ?? lane(h);
    if (s.caller) return s.caller;
    const p = parentOf(s);
    if (p) return lane(p);
    // a root that links to a span of another trace in the file: that span's agent started it
    const linked = tree.orphanOf[s.ordinal] === undefined ? linkedFrom.get(s.ordinal) : undefined;
    if (linked && lane(linked) !== lane(s)) return lane(linked);
    return s.service && s.service !== lane(s) ? s.service : 'user';
  };

  const pending: { event: TraceEvent; origin: Origin; key: [number, number, number, number, number]; traceId: string }[] = [];
  const push = (event: TraceEvent, s: ImportSpan, atEnd: boolean, sub = 0): void => {
    pending.push({ event: defined(event), origin: s.origin, key: [event.t, atEnd ? 1 : 0, atEnd ? -tree.depth[s.ordinal] : tree.depth[s.ordinal], s.ordinal, sub], traceId: s.traceId });
  };
  tree.missing.forEach((m) => {
    const orphans = m.children.map((i) => spans[i]);
    const first = orphans.reduce((a, c) => (startS[c.ordinal] < startS[a.ordinal] ? c : a));
    const ev = { id: `missing:${m.spanId}`, t: startS[first.ordinal], type: 'orchestrator_decision', kind: 'missing_parent', placeholder: true, agent: lane(first), missing_span_id: m.spanId, content: `missing parent ${noun} ${m.spanId} (not in this file; ${orphans.length} ${noun}${orphans.length > 1 ? 's' : ''} name it)` } as TraceEvent;
    pending.push({ event: ev, origin: first.origin, key: [ev.t, 0, -1, first.ordinal, 0], traceId: m.traceId });
  });
  const runEnders = finalAgentSpans(spans, parentOf, (i) => tree.open[i]);
  const outer = opts.outerStopScope ? outerAgentSpans(spans, parentOf) : new Set<ImportSpan>();
  const skipped: Record<string, number> = {};
  const firstInvoke = new Map<string, string>();
  const created = new Map<string, string>();
  for (const s of spans) {
    const i = s.ordinal;
    const t = startS[i];
    const open = tree.open[i];
    const tEnd = open ? undefined : Math.max(t, seconds(s.end));
    const duration = !open && s.start !== undefined && s.end !== undefined ? Number(s.end - s.start) / 1e9 : undefined;
    const parentEvent = mappedAncestor(s);
    const causes = parentEvent ? [parentEvent] : undefined;
    const startExtras: Record<string, unknown> = { ...s.extra };
    if (open && s.role !== 'event') startExtras.open = true;
    const skew = tree.skew[i];
    if (skew !== undefined) {
      startExtras.clock_skew_s = Number(skew) / 1e9;
      startExtras.recorded_t = seconds(s.start);
    }
    const common = { parent: parentEvent, causes, span_name: s.name || undefined, ...startExtras };
    switch (s.role) {
      case 'spawn': {
        const agent = lane(s);
        const caller = callerOf(s);
        push({ id: s.id, t, type: 'spawn', agent: caller, from: caller, to: agent, duration_s: duration, content: s.input, model: s.model, ...common } as TraceEvent, s, false);
        created.set(agent, s.id);
        break;
      }
      case 'agent': {
        const agent = lane(s);
        const caller = callerOf(s);
        push({ id: s.id, t, type: 'delegate', agent: caller, from: caller, to: agent, duration_s: duration, content: s.input, ...common } as TraceEvent, s, false);
        if (!firstInvoke.has(agent)) firstInvoke.set(agent, s.id);
        const h = handedBy.get(s);
        if (h) b.edge(h.id, s.id, 'causal');
        if (tEnd === undefined) break;
        push({ id: `${s.id}.return`, t: tEnd, type: 'return', agent, from: agent, to: caller, content: s.output, ...(usageBelow.has(s) ? {} : ownTokens(s)), ...(costBelow.has(s) || s.cost === undefined ? {} : { cost: s.cost }), model: s.model, parent: s.id, causes: [s.id], error: s.error } as TraceEvent, s, true, 0);
        b.edge(s.id, `${s.id}.return`, 'return');
        const last = s.finishReasons?.[s.finishReasons.length - 1];
        const limit = opts.maxTurnsFromError !== false && !!s.error && /recursion limit|max(imum)?[ _](turns|iterations|steps)/i.test(s.error);
        // The run's last agent span closing is where the run stopped, even when no reason was recorded.
        const reason: StopReason | undefined = s.error ? (limit ? 'max_turns' : 'error') : last !== undefined ? stopReasonOf(last) : runEnders.has(s) || outer.has(s) ? 'unknown' : undefined;
        if (reason) {
          const turn = opts.outerStopScope === 'turn' && outer.has(s);
          const closed = turn ? `the turn's ${noun} closed here: handed back to the user; the export records no stop reason` : `the run's outermost ${noun} closed here; the export records no stop decision or reason`;
          const detail = s.error ?? (last !== undefined ? `finish_reasons ${JSON.stringify(s.finishReasons)}` : closed);
          push({ id: `${s.id}.stop`, t: tEnd, type: 'stop', agent, reason, decided_by: agent, detail, scope: turn ? 'turn' : undefined, parent: s.id, causes: [`${s.id}.return`] } as TraceEvent, s, true, 1);
          b.edge(`${s.id}.return`, `${s.id}.stop`, 'causal');
        }
        break;
      }
      case 'handoff': {
        const from = s.handoffFrom ?? lane(s);
        push({ id: s.id, t, type: 'delegate', agent: from, from, to: s.handoffTo ?? 'unknown', duration_s: duration, content: `handoff ${from} -> ${s.handoffTo ?? '?'}`, handoff: true, error: s.error, ...common } as TraceEvent, s, false);
        break;
      }
      case 'tool': {
        const agent = lane(s);
        const tool = s.tool ?? (s.name || 'tool');
        const call = { id: s.id, t, type: 'tool_call', agent, tool, from: agent, duration_s: duration, content: s.input, ...common } as TraceEvent;
        if (tEnd === undefined) {
          call.call_status = 'no_result';
          push(call, s, false);
          break;
        }
        push(call, s, false);
        push({ id: `${s.id}.result`, t: tEnd, type: 'tool_result', agent, tool, content: s.output, error: s.error, parent: s.id, causes: [s.id] } as TraceEvent, s, true);
        b.edge(s.id, `${s.id}.result`, 'return');
        break;
      }
      case 'llm':
        push({ id: s.id, t, type: 'message', agent: lane(s), from: lane(s), duration_s: duration, ...ownTokens(s), cost: s.cost, model: s.model, finish_reasons: s.finishReasons, content: s.output ?? s.input, input: s.output !== undefined ? s.input : undefined, error: s.error, ...common } as TraceEvent, s, false);
        break;
      case 'event':
        push({ id: s.id, t, type: 'message', agent: lane(s), from: lane(s), content: s.output ?? s.input ?? s.name, error: s.error, ...common } as TraceEvent, s, false);
        break;
      case 'chain':
        push({ id: s.id, t, type: 'orchestrator_decision', agent: lane(s), duration_s: duration, content: s.name, input: s.input, output: s.output, error: s.error, ...common } as TraceEvent, s, false);
        break;
      case 'guardrail':
        push({ id: s.id, t, type: 'safety_event', agent: lane(s), duration_s: duration, content: s.output ?? s.name, error: s.error, ...common } as TraceEvent, s, false);
        break;
      default: {
        const k = s.skipLabel ?? (s.name || 'unnamed');
        if (!s.passThrough) addTo(skipped, k);
      }
    }
    if (mapped(s) && parentEvent) b.edge(parentEvent, s.id, 'causal');
  }
  for (const [agent, spawnId] of created) {
    const invoke = firstInvoke.get(agent);
    if (invoke) b.edge(spawnId, invoke, 'spawn');
  }
  pending.sort((x, y) => {
    for (let i = 0; i < 5; i++) if (x.key[i] !== y.key[i]) return x.key[i] - y.key[i];
    return 0;
  });
  // Several traces: each event names its trace, so the graph and the analysis treat each on its own.
  const several = tree.traceIds.filter(Boolean).length > 1;
  for (const p of pending) b.add(several && p.traceId ? ({ ...p.event, trace_id: p.traceId } as TraceEvent) : p.event, p.origin);
  const eventOf = (s: ImportSpan): string | undefined => (mapped(s) ? s.id : mappedAncestor(s));
  reportTree(spans, tree, b, eventOf, skipped, noun, opts);

  const traceIds = tree.traceIds.filter(Boolean);
  const services = [...new Set(spans.map((s) => s.service).filter((x): x is string => !!x))];
  const figures: Record<string, unknown> = { trace_ids: traceIds, services, spans: spans.length, ...opts.figures };
  if (Object.keys(skipped).length) figures.skipped_spans = skipped;
  if (tree.missing.length) figures.missing_parents = tree.missing.map((m) => ({ trace_id: m.traceId, span_id: m.spanId, children: m.children.map((c) => spans[c].id) }));
  if (tree.cycles.length) figures.cut_parent_edges = tree.cycles.map((c) => ({ parent: spans[c.parent].id, child: spans[c.child].id }));
  // what was asked: the input of the run's first root span (a chain or an agent), else the prompt of its
  // first model call (an OpenAI Agents SDK agent span records no input), when the file holds one trace
  const root = traceIds.length <= 1 ? spans.find((x) => !parentOf(x) && (x.role === 'chain' || x.role === 'agent') && x.input) : undefined;
  const firstCall = traceIds.length <= 1 && !root ? firstModelCall(spans) : undefined;
  const task = root?.input ? promptOf(root.input) : firstCall?.input ? promptOf(firstCall.input) : undefined;
  // and what it answered: the root's output (the last assistant message of a chat, the one text of an object)
  const answer = root?.output ? answerOf(root.output) : undefined;
  return b.finish(opts.format, {
    trace_id: traceIds[0] ?? baseName(fileName),
    system: services[0],
    ...opts.header,
    metadata: { source: opts.source ?? opts.format, [opts.metaKey]: figures, ...(task ? { task } : {}), ...(answer ? { final_output: answer } : {}) },
  });
}

/** The model call (an `llm` span with an input) that started first (then first in the file), or undefined. */
function firstModelCall(spans: readonly ImportSpan[]): ImportSpan | undefined {
  let first: ImportSpan | undefined;
  // (a span with no start time sorts after those with one)
  const at = (s: ImportSpan) => s.start ?? BigInt(Number.MAX_SAFE_INTEGER) * 1_000_000n;
  for (const s of spans) if (s.role === 'llm' && s.input && (!first || at(s) < at(first))) first = s;
  return first;
}

/**
 * The prompt in a root span's input: the last user message of a chat (`[["user", "…"]]`,
 * `[{"role": "user", "content": "…"}]`, under `messages`), the one text of an object
 * (`{"question": "…"}`), else the input as written.
 */
export function promptOf(input: string): string {
  return messageIn(input, USER_ROLES);
}

/** The answer in a root span's output: the last assistant message of a chat (`[["ai", "…"]]`), the one text of an object, else the output as written. */
export function answerOf(output: string): string {
  return messageIn(output, ASSISTANT_ROLES);
}

const USER_ROLES = new Set(['user', 'human']);
const ASSISTANT_ROLES = new Set(['ai', 'assistant']);

/** The last message of one of `roles` in a JSON text of a chat, the one text of an object, else the text itself. */
function messageIn(text: string, roles: ReadonlySet<string>): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  return textIn(value, roles) ?? text;
}

function textIn(value: unknown, roles: ReadonlySet<string>): string | undefined {
  if (typeof value === 'string') return value.trim() ? value : undefined;
  if (Array.isArray(value)) {
    for (let k = value.length - 1; k >= 0; k--) {
      const m = value[k];
      if (Array.isArray(m) && m.length === 2 && typeof m[0] === 'string' && roles.has(m[0].toLowerCase())) return textIn(m[1], roles);
      if (m && typeof m === 'object' && !Array.isArray(m)) {
        const { role, type, content } = m as Record<string, unknown>;
        if (roles.has(String(role ?? type ?? '').toLowerCase())) return textIn(content, roles);
      }
    }
    return value.length === 1 ? textIn(value[0], roles) : undefined;
  }
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (o.messages !== undefined) return textIn(o.messages, roles);
    const texts = Object.values(o).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
    return texts.length === 1 ? texts[0] : undefined;
  }
  return undefined;
}

/** A copy of `event` without its undefined fields (cheaper than deleting them: a deleted key makes a slow object). */
function defined(event: TraceEvent): TraceEvent {
  const raw = event as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key in raw) if (raw[key] !== undefined) out[key] = raw[key];
  return out as TraceEvent;
}

/**
 * Edges and warnings for what the tree found: links (own edge type), cut cycles (a marked `link`
 * edge where the parent edge was), skew, orphans, open spans, several traces, the reader's notes, and
 * the spans that gave no event.
 */
function reportTree(spans: ImportSpan[], tree: SpanTree, b: ImportBuilder, eventOf: (s: ImportSpan) => string | undefined, skipped: Record<string, number>, noun: string, opts: SpanTraceOptions): void {
  const at = (i: number): Range => spans[i].origin.range;
  const nouns = (n: number) => `${n} ${noun}${n > 1 ? 's' : ''}`;
  let unresolved = 0;
  const linked = new Set<string>();
  for (const l of tree.links) {
    const src = eventOf(spans[l.from]);
    const dst = l.to === undefined ? undefined : eventOf(spans[l.to]);
    if (!src || !dst || src === dst) {
      unresolved++;
      continue;
    }
    const edge: TraceEdge = { src, dst, type: 'link' };
    if (l.attributes) edge.attributes = l.attributes;
    const key = `${src}\u0000${dst}`;
    if (!linked.has(key)) {
      linked.add(key);
      b.edges.push(edge);
    }
  }
  if (unresolved) b.problem('info', `${unresolved} ${noun} link${unresolved > 1 ? 's name' : ' names'} a ${noun} not in this file (or one that gives no event); not drawn`, at(tree.links[0].from));
  for (const c of tree.cycles) {
    const names = c.cycle.map((i) => spans[i].id);
    const src = eventOf(spans[c.parent]);
    const dst = eventOf(spans[c.child]);
    if (src && dst && src !== dst) b.edges.push({ src, dst, type: 'link', cut_parent: true });
    b.problem('warning', c.cycle.length === 1 ? `${noun} ${names[0]} names itself as its parent; drawn as a root` : `parent ids form a cycle (each ${noun}'s parent is the next: ${[...names, names[0]].join(' -> ')}); cut at ${noun} ${spans[c.child].id} (the earliest), which is drawn as a root; the cut parent edge is drawn as a marked link`, at(c.child));
  }
  const skewed = spans.filter((s) => tree.skew[s.ordinal] !== undefined);
  if (skewed.length) {
    const worst = skewed.reduce((a, s) => (tree.skew[s.ordinal]! < tree.skew[a.ordinal]! ? s : a));
    b.problem('warning', `clock skew: ${nouns(skewed.length)} ${skewed.length > 1 ? 'start before their parents' : 'starts before its parent'} (up to ${ms(-tree.skew[worst.ordinal]!)} early); each is placed at its parent's start with "clock_skew_s" and its recorded time in "recorded_t"`, at(skewed[0].ordinal));
  }
  if (tree.missing.length) {
    const count = tree.missing.reduce((n, m) => n + m.children.length, 0);
    b.problem('warning', `${nouns(count)} lost ${count > 1 ? 'their' : 'its'} parent (${tree.missing.map((m) => m.spanId).join(', ')} not in this file); shown under a "missing parent" placeholder`, at(tree.missing[0].children[0]));
  }
  const open = spans.filter((s) => tree.open[s.ordinal] && s.role !== 'event');
  if (open.length) {
    const ids = `${open.slice(0, 10).map((s) => s.id).join(', ')}${open.length > 10 ? ', ...' : ''}`;
    b.problem(
      'warning',
      `${nouns(open.length)} ${open.length > 1 ? 'have' : 'has'} no end time (${ids}): still open when the file was written; duration unknown, no result or return invented`,
      at(open[0].ordinal),
      `${nouns(open.length)} ${open.length > 1 ? 'have' : 'has'} no end time yet (${ids}): the file is being written, and a span's end is read when it comes`,
    );
  }
  const traces = tree.traceIds.filter(Boolean);
  if (traces.length > 1) {
    const second = spans.find((s) => s.traceId === traces[1])!.ordinal;
    const named = traces.length > 5 ? `${traces.slice(0, 5).join(', ')}, ...` : traces.join(', ');
    b.problem('info', `${traces.length} traces in this file (${named}); one graph with a lane group per trace; each trace is analysed on its own`, at(second));
  }
  for (const n of opts.notes ?? []) b.problem(n.severity, n.message, at(n.ordinal));
  const kinds = Object.entries(skipped);
  if (kinds.length) {
    const total = kinds.reduce((n, [, c]) => n + c, 0);
    const first = spans.find((s) => s.role === 'other')!;
    b.problem('warning', `${nouns(total)} of ${kinds.length} kind${kinds.length > 1 ? 's' : ''} not shown (${opts.skipWhy ?? 'no agent, tool, model or step role'}; children pass through them): ${kinds.map(([k, c]) => `${k} ${c}`).join(', ')}`, at(first.ordinal));
  }
}
