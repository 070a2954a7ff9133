/**
 * Importer for agent-observability span documents, AgentOps-style: `{"trace": {...}, "spans": [...]}`
 * (AgentOps' trace API / export: a trace record and its spans as ClickHouse rows) or
 * `{"trace_id", "spans": [...]}` with spans nested through `child_spans` (the same rows as a tree, as in
 * the TRAIL benchmark's released traces). Format: AgentOps semantic conventions
 * (https://docs.agentops.ai, agentops `semconv/`: `agentops.span.kind` session / workflow / agent /
 * task / operation / tool / llm / guardrail, `agent.name`, `tool.name`, `tool.parameters`,
 * `tool.result`, gen_ai.*) on span rows: span_id, parent_span_id, trace_id, span_name, span_kind,
 * service_name, start_time / end_time (ISO 8601) or timestamp + duration (ns, or ISO 8601 `PT1.5S`),
 * status_code (OK, ERROR, UNSET), status_message, span_attributes (nested objects or dotted keys),
 * resource_attributes.
 *
 * Role: `agentops.span.kind` (agent; tool; llm; workflow, session, task, operation, team -> chain;
 * guardrail), else the GenAI / OpenInference rules (./span-import.ts `genAiSpan`), else skipped
 * (counted). Agent lane: agent.name / gen_ai.agent.name, else the span name without `.agent`.
 * status_code ERROR marks a failed span. record = the span's 0-based index in the file in document
 * order (a nested child after its parent), range = the span object.
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace } from '../model';
import { isComplete, items, nodeRange, parseJsonDocument, propertyOf, sharedValueIn, type JsonDocument } from '../json-positions';
import { ImportBuilder } from './json-import';
import { spanContent } from './otel-content';
import { buildSpanTrace, flatten, genAiSpan, str, text, timeNs, type ImportSpan, type SpanRole } from './span-import';

export const AGENTOPS_FORMAT = 'agentops';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const KINDS: Record<string, SpanRole> = { agent: 'agent', tool: 'tool', llm: 'llm', workflow: 'chain', session: 'chain', task: 'chain', operation: 'chain', team: 'chain', guardrail: 'guardrail' };

/** Reads an agent-observability span document. Never throws: problems are returned with positions. */
export function readAgentOps(source: string, fileName: string): LoadedTrace {
  const b = new ImportBuilder();
  const doc = parseJsonDocument(source, new LineIndex(source));
  b.problems.push(...doc.problems);
  const spans: ImportSpan[] = [];
  let record = 0;
  const visit = (node: Node, nestedIn: string | undefined, traceId: string): void => {
    const index = record++;
    const id = readSpan(doc, node, index, nestedIn, traceId, spans, b);
    for (const c of items(propertyOf(node, 'child_spans'))) visit(c, id, traceId);
  };
  const root = doc.root;
  const docs = root?.type === 'array' ? items(root) : root ? [root] : [];
  let header: Record<string, unknown> | undefined;
  for (const d of docs) {
    const v = sharedValueIn(doc, propertyOf(d, 'trace'));
    const trace = isObject(v) ? v : {};
    header ??= trace;
    const traceId = str(trace.trace_id) ?? str(sharedValueIn(doc, propertyOf(d, 'trace_id'))) ?? '';
    for (const node of items(propertyOf(d, 'spans'))) visit(node, undefined, traceId);
  }
  return buildSpanTrace(spans, b, fileName, { format: AGENTOPS_FORMAT, metaKey: 'agentops', header: header && str(header.project_id) ? { project_id: str(header.project_id) } : undefined });
}

/** ns from a duration: a number of ns, or ISO 8601 `PT#H#M#S`. */
function durationNs(v: unknown): bigint | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.round(v));
  const m = typeof v === 'string' ? /^PT(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(v) : null;
  if (!m) return typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : undefined;
  const s = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return BigInt(Math.round(s * 1e9));
}

function readSpan(doc: JsonDocument, node: Node, record: number, nestedIn: string | undefined, traceId: string, spans: ImportSpan[], b: ImportBuilder): string | undefined {
  const range = nodeRange(doc, node);
  const v = isComplete(doc, node) ? sharedValueIn(doc, node) : undefined;
  const id = isObject(v) ? str(v.span_id) : undefined;
  if (!isObject(v) || !id) {
    b.problem('error', `span ${record} ${!isComplete(doc, node) ? 'is cut off' : isObject(v) ? 'has no "span_id"' : 'must be an object'}; skipped`, range);
    return undefined;
  }
  const attrs = flatten(v.span_attributes);
  const resource = flatten(v.resource_attributes);
  const name = str(v.span_name) ?? str(v.name) ?? '';
  const g = genAiSpan(attrs, name);
  const kind = (str(attrs['agentops.span.kind']) ?? '').toLowerCase();
  const role: SpanRole = KINDS[kind] ?? g.role;
  const content = spanContent(attrs, []);
  const start = timeNs(v.start_time ?? v.timestamp);
  const duration = durationNs(v.duration);
  const end = timeNs(v.end_time) ?? (start !== undefined && duration !== undefined ? start + duration : undefined);
  if (start === undefined) b.problem('warning', `span ${id} has no start time; placed at its parent's start`, range);
  const agent = g.agent ?? (role === 'agent' ? name.replace(/\.agent$/, '') || undefined : undefined);
  spans.push({
    ordinal: spans.length,
    origin: { range, record },
    traceId: str(v.trace_id) ?? traceId,
    spanId: id,
    id,
    parentSpanId: str(v.parent_span_id) || nestedIn,
    start,
    end,
    links: [],
    name,
    ...g,
    role,
    agent,
    tool: role === 'tool' ? str(attrs['tool.name']) ?? g.tool ?? name.replace(/\.tool$/, '') : undefined,
    input: g.input ?? content.input,
    output: g.output ?? text(attrs['tool.result']) ?? content.output,
    service: str(resource['service.name']) ?? str(v.service_name),
    error: str(v.status_code)?.toUpperCase().endsWith('ERROR') ? str(v.status_message) || 'error' : undefined,
    skipLabel: kind || g.skipLabel || name,
  });
  return id;
}

/** Agent-observability documents: `spans` whose items have `span_id` and `span_attributes`. */
export const agentOpsFormat: TraceFormat = {
  id: AGENTOPS_FORMAT,
  label: 'Agent-observability span document (AgentOps-style trace + spans)',
  keys: ['span_attributes'],
  detect(t) {
    const head = t.slice(0, 1 << 16);
    return /^\s*[[{]/.test(head) && /"spans"\s*:\s*\[/.test(head) && /"span_id"\s*:/.test(head) && /"span_attributes"\s*:/.test(head);
  },
  read: (t, fileName) => readAgentOps(t, fileName),
};

registerFormat(agentOpsFormat, true);
