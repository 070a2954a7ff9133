/**
 * Importer for Langfuse traces as the public API returns them: `GET /api/public/traces/{traceId}`
 * (a trace with its `observations[]`, the shape the UI's trace JSON view / download shows), a list of
 * such traces (`{"data": [trace, ...]}` or an array), or `GET /api/public/observations` (`{"data": [observation, ...]}`).
 * Format: Langfuse API reference (https://api.reference.langfuse.com, TraceWithFullDetails,
 * Observation) and data model (https://langfuse.com/docs/observability/data-model): observation = id,
 * traceId, type (SPAN, GENERATION, EVENT, AGENT, TOOL, CHAIN, RETRIEVER, EVALUATOR, EMBEDDING,
 * GUARDRAIL), name, startTime / endTime (ISO 8601), parentObservationId, input, output, model,
 * usage {input, output, total} / usageDetails, level (DEBUG, DEFAULT, WARNING, ERROR), statusMessage.
 *
 * Type -> role (./span-import.ts): AGENT agent (lane = its name), TOOL and RETRIEVER tool (tool = its
 * name), GENERATION and EMBEDDING llm, EVENT event (a message at its time), SPAN and CHAIN chain
 * (an orchestrator step), GUARDRAIL guardrail, EVALUATOR and unknown types other (counted, skipped).
 * level ERROR marks a failed observation (statusMessage is the error). The trace's name is the
 * lane of last resort. record = the observation's 0-based index in the file, range = its object.
 * An observation listed only by id (the list endpoint's trace summaries) cannot be read: one warning.
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace } from '../model';
import { isComplete, items, nodeRange, parseJsonDocument, propertyOf, sharedValueIn, type JsonDocument } from '../json-positions';
import { ImportBuilder } from './json-import';
import { buildSpanTrace, num, str, text, timeNs, type ImportSpan, type SpanRole } from './span-import';
import { usageFrom } from '../tokens';

export const LANGFUSE_FORMAT = 'langfuse';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const ROLES: Record<string, SpanRole> = { AGENT: 'agent', TOOL: 'tool', RETRIEVER: 'tool', GENERATION: 'llm', EMBEDDING: 'llm', EVENT: 'event', SPAN: 'chain', CHAIN: 'chain', GUARDRAIL: 'guardrail' };

/** Reads a Langfuse trace export. Never throws: problems are returned with positions. */
export function readLangfuse(source: string, fileName: string): LoadedTrace {
  const b = new ImportBuilder();
  const doc = parseJsonDocument(source, new LineIndex(source));
  b.problems.push(...doc.problems);
  const spans: ImportSpan[] = [];
  let record = 0;
  let idsOnly = 0;
  const root = doc.root;
  const list = root?.type === 'array' ? items(root) : propertyOf(root, 'data') ? items(propertyOf(root, 'data')) : root ? [root] : [];
  let first: Record<string, unknown> | undefined;
  for (const node of list) {
    const observations = propertyOf(node, 'observations');
    if (!observations) {
      // An observation of the observations endpoint.
      readObservation(doc, node, record++, undefined, spans, b);
      continue;
    }
    const trace = sharedValueIn(doc, node);
    const t = isObject(trace) ? trace : {};
    first ??= t;
    for (const o of items(observations)) {
      if (o.type === 'string') {
        idsOnly++;
        continue;
      }
      readObservation(doc, o, record++, str(t.name) ?? str(t.id), spans, b);
    }
  }
  if (idsOnly) b.problem('warning', `${idsOnly} observation${idsOnly > 1 ? 's are' : ' is'} listed by id only (a trace summary); fetch each trace with GET /api/public/traces/{id} to see them`, doc.root ? nodeRange(doc, doc.root) : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
  const header: Record<string, unknown> = {};
  if (first) {
    header.trace_id = str(first.id);
    header.name = str(first.name);
    header.task = text(first.input);
  }
  return buildSpanTrace(spans, b, fileName, { format: LANGFUSE_FORMAT, metaKey: 'langfuse', noun: 'observation', header, figures: first ? { scores: Array.isArray(first.scores) ? first.scores.length : 0 } : undefined });
}

function readObservation(doc: JsonDocument, node: Node, record: number, traceName: string | undefined, spans: ImportSpan[], b: ImportBuilder): void {
  const range = nodeRange(doc, node);
  const v = isComplete(doc, node) ? sharedValueIn(doc, node) : undefined;
  const id = isObject(v) ? str(v.id) : undefined;
  if (!isObject(v) || !id) {
    b.problem('error', `observation ${record} ${!isComplete(doc, node) ? 'is cut off' : isObject(v) ? 'has no "id"' : 'must be an object'}; skipped`, range);
    return;
  }
  const type = (str(v.type) ?? 'SPAN').toUpperCase();
  const role = ROLES[type] ?? 'other';
  const name = str(v.name) ?? '';
  const start = timeNs(v.startTime);
  if (start === undefined) b.problem('warning', `observation ${id} has no startTime; placed at its parent's start`, range);
  const usage = isObject(v.usageDetails) && Object.keys(v.usageDetails).length ? v.usageDetails : isObject(v.usage) ? v.usage : {};
  const input = num(usage.input) ?? num(v.promptTokens);
  const output = num(usage.output) ?? num(v.completionTokens);
  const byKind = input || output ? usageFrom({ input, output }, true) : undefined;
  const tokens = byKind ? undefined : num(usage.total) || undefined;
  const metadata = isObject(v.metadata) ? v.metadata : {};
  const ordinal = spans.length;
  spans.push({
    ordinal,
    origin: { range, record },
    traceId: str(v.traceId) ?? '',
    spanId: id,
    id,
    parentSpanId: str(v.parentObservationId),
    start,
    // An EVENT is a point in time: it ends where it starts.
    end: type === 'EVENT' ? start : timeNs(v.endTime),
    links: [],
    name,
    role,
    agent: role === 'agent' ? name || undefined : str(metadata.agent_name) ?? str(metadata['gen_ai.agent.name']),
    service: traceName,
    tool: role === 'tool' ? name || 'tool' : undefined,
    input: text(v.input),
    output: text(v.output),
    tokens: role === 'llm' || role === 'agent' ? tokens : undefined,
    usage: role === 'llm' || role === 'agent' ? byKind : undefined,
    model: str(v.model) ?? str(v.providedModelName),
    error: str(v.level) === 'ERROR' ? str(v.statusMessage) || 'error' : undefined,
    skipLabel: type,
    extra: { observation_type: type },
  });
}

/** Langfuse: a trace object (or list) with `observations`, or observations with `parentObservationId`. */
export const langfuseFormat: TraceFormat = {
  id: LANGFUSE_FORMAT,
  label: 'Langfuse trace (public API / UI JSON)',
  detect(t) {
    const head = t.slice(0, 1 << 16);
    if (!/^\s*[[{]/.test(head) || /"(resourceSpans|resource_spans)"\s*:/.test(head)) return false;
    return (/"observations"\s*:\s*\[/.test(head) && /"(htmlPath|parentObservationId|traceId|scores)"\s*:/.test(head)) || (/"parentObservationId"\s*:/.test(head) && /"startTime"\s*:/.test(head));
  },
  read: (t, fileName) => readLangfuse(t, fileName),
};

registerFormat(langfuseFormat, true);
