/**
 * How one agent calls another in OpenTelemetry GenAI spans (open-telemetry/semantic-conventions-genai:
 * docs/gen-ai/gen-ai-agent-spans.md, docs/gen-ai/a2a.md, non-normative/examples-agent-interactions.md,
 * model/a2a/spans.yaml), so each call is drawn once, from the caller to the callee's own lane:
 * - an agent invoked through a tool (an `invoke_agent` under an `execute_tool`; the tool records the
 *   target in `gen_ai.transfer.target.name`): an unnamed `invoke_agent` there is the target's (else the tool's) lane;
 * - A2A: a client span (`a2a.method.name` SendMessage / SendStreamingMessage, kind CLIENT) is the call
 *   to the agent of its Agent Card (`gen_ai.agent.name`); other A2A methods are tool calls `a2a:<method>`;
 *   a server span is the callee's side (its agent's lane for what runs under it);
 * - a remote `invoke_agent` (kind CLIENT) is the call; the `invoke_agent` INTERNAL of the same agent
 *   under it (in the callee's process), or under an A2A call, is its serving side: it gives no
 *   event of its own, and what it records (output, finish reasons, error) goes to the call when the
 *   call lacks it. `gen_ai.caller.name` names the caller of a call.
 * Pure: no I/O.
 */
import type { ImportSpan } from './span-import';
import { str } from './span-import';

/** A span's kind (OTLP `kind`: 1 internal, 2 server, 3 client, 4 producer, 5 consumer, or `SPAN_KIND_*`; the JS SDK's serialization counts from 0 internal). */
export type SpanKind = 'internal' | 'server' | 'client' | 'producer' | 'consumer';

const KINDS: SpanKind[] = ['internal', 'server', 'client', 'producer', 'consumer'];

/**
 * The kind a span records, or undefined (absent, unspecified, unknown).
 * @param sdk true for a span as the OpenTelemetry JS SDK serializes it (its `SpanKind` enum starts at 0 = INTERNAL).
 */
export function spanKindOf(v: unknown, sdk: boolean): SpanKind | undefined {
  if (typeof v === 'string') {
    const m = /^(?:SPAN_KIND_)?(INTERNAL|SERVER|CLIENT|PRODUCER|CONSUMER)$/i.exec(v.trim());
    if (m) return m[1].toLowerCase() as SpanKind;
    if (!/^\d+$/.test(v.trim())) return undefined;
  }
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isInteger(n)) return undefined;
  return KINDS[sdk ? n : n - 1];
}

/** One span as the reader holds it: the span handed to the span builder, its attributes and kind. */
export interface KindedSpan {
  span: ImportSpan;
  attrs: Record<string, unknown>;
  kind?: SpanKind;
}

/** A2A methods that send a message to an agent (an invocation); the others (GetTask, CancelTask, ...) are tool calls. */
const A2A_SENDS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

/**
 * The role an A2A span takes (`a2a.method.name`), or undefined for a span that is not A2A: a client
 * span sending a message to a named agent is that agent's invocation; other client spans are tool
 * calls `a2a:<method>`; a server span passes its agent's lane to the spans under it (an invocation
 * when no client span calls it: decided by {@link linkAgentCalls}).
 */
export function a2aRole(attrs: Record<string, unknown>, kind: SpanKind | undefined): Pick<ImportSpan, 'role' | 'agent' | 'tool' | 'skipLabel'> | undefined {
  const method = str(attrs['a2a.method.name']);
  if (!method) return undefined;
  const agent = str(attrs['gen_ai.agent.name']);
  if (kind === 'server') return { role: 'other', agent, skipLabel: `a2a server ${method}` };
  if (A2A_SENDS.has(method) && agent) return { role: 'agent', agent };
  return { role: 'tool', tool: `a2a:${method}`, agent: undefined };
}

/**
 * Settles the agent calls of a file's spans (see the module doc): lanes of agents invoked as tools,
 * callers recorded by `gen_ai.caller.name`, and serving sides made pass-through (their output, finish
 * reasons and error moved to the call when it lacks them). Changes the spans.
 * @returns the number of spans found to be a call's serving side.
 */
export function linkAgentCalls(read: readonly KindedSpan[]): number {
  const byId = new Map<string, KindedSpan>();
  for (const r of read) if (!byId.has(r.span.spanId)) byId.set(r.span.spanId, r);
  const parentOf = (r: KindedSpan) => (r.span.parentSpanId ? byId.get(r.span.parentSpanId) : undefined);
  /** The nearest ancestor that gives events (not a pass-through or skipped span), within 64 steps. */
  const shownAncestor = (r: KindedSpan): KindedSpan | undefined => {
    let p = parentOf(r);
    for (let k = 0; p && p.span.role === 'other' && k < 64; k++) p = parentOf(p);
    return p && p.span.role !== 'other' ? p : undefined;
  };
  for (const r of read) {
    const caller = str(r.attrs['gen_ai.caller.name']);
    if (caller && r.span.role === 'agent') r.span.caller = caller;
    if (r.span.role !== 'agent' || r.span.agent) continue;
    const p = shownAncestor(r);
    if (p?.span.role === 'tool') r.span.agent = str(p.attrs['gen_ai.transfer.target.name']) ?? p.span.tool;
  }
  let serving = 0;
  const isCall = (c: KindedSpan | undefined, agent: string | undefined): c is KindedSpan => !!c && !!agent && c.span.role === 'agent' && c.kind === 'client' && c.span.agent === agent;
  // A2A server spans under their client call stay pass-through; one with no call in the file is the invocation.
  for (const r of read) {
    if (r.kind !== 'server' || !str(r.attrs['a2a.method.name'])) continue;
    if (isCall(shownAncestor(r), r.span.agent)) {
      r.span.passThrough = true;
      serving++;
    } else if (r.span.agent && A2A_SENDS.has(str(r.attrs['a2a.method.name'])!)) r.span.role = 'agent';
  }
  for (const r of read) {
    if (r.span.role !== 'agent' || r.kind === 'client') continue;
    const call = shownAncestor(r);
    if (!isCall(call, r.span.agent)) continue;
    const s = r.span;
    call.span.output ??= s.output;
    call.span.finishReasons ??= s.finishReasons;
    call.span.error ??= s.error;
    s.role = 'other';
    s.passThrough = true;
    serving++;
  }
  return serving;
}
