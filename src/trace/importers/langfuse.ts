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
 * The trace's `input` is the recorded task (`metadata.task`); when no observation carries input or
 * output, the trace's input and output are given to its first root observation (the task and the
 * final answer), with a warning. Observations exported twice (new ids; same type, name,
 * times, input, output, usage, model, level, metadata; a parent that is the same or a copy; the same
 * trace, or, when the observation has a start time, any trace of the file: a trace re-exported under a
 * new id) are kept once, with one warning (`metadata.langfuse.duplicates`: copy id -> kept id; ./span-duplicates.ts).
 * A trace with a `sessionId` is one turn of a session: the stop at its outermost agent's end has
 * `scope: "turn"` (handed back to the user; `metadata.langfuse.session_id`).
 * Usage (`usageDetails`, else `usage`): input, output, cache read (`input_cached_tokens`,
 * `cache_read_input_tokens`, `input_cache_read`), cache write (`cache_creation_input_tokens`,
 * `input_cache_creation`, `cache_write_input_tokens`), reasoning (`output_reasoning_tokens`); whether
 * the cached tokens are inside `input` (and reasoning inside `output`) is read from the recorded
 * `total`; without one, Langfuse sums every usage type into the total (docs: "Token & Cost Tracking"), so they are beside it.
 * Cost (US dollars, as recorded): a model call's or agent's `costDetails`, `totalCost` or
 * `calculatedTotalCost` is its event's `cost`; the trace's `totalCost` is `costs.usd` when the file
 * holds that one trace and no copies.
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace } from '../model';
import { isComplete, items, nodeRange, parseJsonDocument, propertyOf, sharedValueIn, type JsonDocument } from '../json-positions';
import { ImportBuilder } from './json-import';
import { buildSpanTrace, num, recordedCost, str, text, timeNs, type ImportSpan, type SpanRole } from './span-import';
import { duplicateSpans } from './span-duplicates';
import { usageFrom } from '../tokens';
import type { TokenUsage } from '../schema';

export const LANGFUSE_FORMAT = 'langfuse';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const ROLES: Record<string, SpanRole> = { AGENT: 'agent', TOOL: 'tool', RETRIEVER: 'tool', GENERATION: 'llm', EMBEDDING: 'llm', EVENT: 'event', SPAN: 'chain', CHAIN: 'chain', GUARDRAIL: 'guardrail' };

/** Reads a Langfuse trace export. Never throws: problems are returned with positions. */
export function readLangfuse(source: string, fileName: string): LoadedTrace {
  const b = new ImportBuilder();
  const doc = parseJsonDocument(source, new LineIndex(source));
  b.problems.push(...doc.problems);
  const read: ReadObservation[] = [];
  let record = 0;
  let idsOnly = 0;
  const root = doc.root;
  const list = root?.type === 'array' ? items(root) : propertyOf(root, 'data') ? items(propertyOf(root, 'data')) : root ? [root] : [];
  let first: Record<string, unknown> | undefined;
  let traces = 0;
  for (const node of list) {
    const observations = propertyOf(node, 'observations');
    if (!observations) {
      // An observation of the observations endpoint.
      readObservation(doc, node, record++, undefined, read, b);
      continue;
    }
    const trace = sharedValueIn(doc, node);
    const t = isObject(trace) ? trace : {};
    first ??= t;
    traces++;
    for (const o of items(observations)) {
      if (o.type === 'string') {
        idsOnly++;
        continue;
      }
      readObservation(doc, o, record++, str(t.name) ?? str(t.id), read, b);
    }
  }
  if (idsOnly) b.problem('warning', `${idsOnly} observation${idsOnly > 1 ? 's are' : ' is'} listed by id only (a trace summary); fetch each trace with GET /api/public/traces/{id} to see them`, doc.root ? nodeRange(doc, doc.root) : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
  const { spans, duplicates } = withoutCopies(read, b);
  if (first) traceContent(first, spans, b);
  const header: Record<string, unknown> = {};
  const figures: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  if (first) {
    header.trace_id = str(first.id);
    header.name = str(first.name);
    const task = taskOf(first.input);
    if (task !== undefined) metadata.task = task;
    figures.scores = Array.isArray(first.scores) ? first.scores.length : 0;
    // The trace's own total (Langfuse sums its observations' costs) is what the run spent, unless the
    // file holds other traces or copies of observations (which that total counts twice).
    const usd = num(first.totalCost);
    if (usd !== undefined && traces === 1 && !Object.keys(duplicates).length) header.costs = { usd };
  }
  if (Object.keys(duplicates).length) figures.duplicates = duplicates;
  // A trace of a session is one interaction of a multi-turn conversation (Langfuse docs, "Sessions"): its outermost agent's end hands back to the user.
  const turn = first !== undefined && str(first.sessionId) !== undefined;
  if (turn) figures.session_id = str(first!.sessionId);
  const loaded = buildSpanTrace(spans, b, fileName, { format: LANGFUSE_FORMAT, metaKey: 'langfuse', noun: 'observation', header, figures: Object.keys(figures).length ? figures : undefined, outerStopScope: turn ? 'turn' : undefined });
  if (Object.keys(metadata).length) loaded.trace.metadata = { ...loaded.trace.metadata, ...metadata };
  return loaded;
}

/** One observation as read: its span, and what two copies of it share (undefined: never compared). */
interface ReadObservation {
  span: ImportSpan;
  fingerprint: string | undefined;
  /** It has a start time: its copy may be matched in another trace. */
  timed: boolean;
}

/**
 * The observations without the copies of observations exported twice ({@link duplicateSpans}):
 * the kept spans renumbered 0..n-1 (their records unchanged), a child of a copy hung under the kept
 * one, one warning at the first copy. @returns the spans and copy id -> kept id.
 */
function withoutCopies(read: ReadObservation[], b: ImportBuilder): { spans: ImportSpan[]; duplicates: Record<string, string> } {
  const all = read.map((r) => r.span);
  // a copy under another trace id (a trace re-exported whole) is matched when its start time pins it down
  const copies = duplicateSpans(all, read.map((r) => r.fingerprint), read.map((r) => r.timed));
  if (!copies.size) return { spans: all, duplicates: {} };
  const duplicates: Record<string, string> = {};
  const keptId = new Map<string, string>();
  for (const [copy, kept] of copies) {
    duplicates[all[copy].spanId] = all[kept].spanId;
    keptId.set(all[copy].spanId, all[kept].spanId);
  }
  const spans = all.filter((_, i) => !copies.has(i));
  spans.forEach((s, i) => {
    s.ordinal = i;
    const p = s.parentSpanId !== undefined ? keptId.get(s.parentSpanId) : undefined;
    if (p !== undefined) s.parentSpanId = p;
  });
  let firstCopy = all.length;
  for (const copy of copies.keys()) if (copy < firstCopy) firstCopy = copy;
  const originals = new Set(copies.values()).size;
  const n = copies.size;
  let elsewhere = 0;
  for (const [copy, kept] of copies) if (all[copy].traceId !== all[kept].traceId) elsewhere++;
  const where = elsewhere ? `; ${elsewhere === n ? (n > 1 ? 'all under another trace id' : 'under another trace id') : `${elsewhere} under another trace id`}` : '';
  b.problem('warning', `${n} observation${n > 1 ? 's duplicate' : ' duplicates'} ${originals} other${originals > 1 ? 's' : ''} (the same name, times, input, output and usage under new ids: exported twice${where}); each is counted once and the copies are not shown`, all[firstCopy].origin.range);
  return { spans, duplicates };
}

/**
 * When no observation carries input or output: the trace's input and output, given to its first
 * root observation (the outermost agent when there is one), so the task and the final answer are
 * shown; one warning. Changes `spans`.
 */
function traceContent(trace: Record<string, unknown>, spans: ImportSpan[], b: ImportBuilder): void {
  const input = text(trace.input);
  const output = text(trace.output);
  if ((input === undefined && output === undefined) || !spans.length || spans.some((s) => s.input !== undefined || s.output !== undefined)) return;
  const ids = new Set(spans.map((s) => s.spanId));
  const roots = spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  const earliest = (list: ImportSpan[]) => list.reduce<ImportSpan | undefined>((a, s) => (!a || (s.start ?? 0n) < (a.start ?? 0n) ? s : a), undefined);
  const target = earliest(roots.filter((s) => s.role === 'agent')) ?? earliest(roots) ?? spans[0];
  target.input = input;
  target.output = output;
  const what = [input !== undefined ? 'input' : '', output !== undefined ? 'output' : ''].filter(Boolean).join(' and ');
  b.problem('warning', `no observation carries input or output; the trace's ${what} ${what.includes(' and ') ? 'are' : 'is'} shown on observation ${target.spanId} (${target.name || target.role}) as the task${output !== undefined ? ' and the final answer' : ''}`, target.origin.range);
}

/**
 * The task a trace's input records: a string as it is; an object as it is (its `question`, `prompt`,
 * `instruction`, `task` or `description` is read as the task, src/analysis/run-summary.ts); a list of
 * chat messages: the last user message's text; anything else as JSON text.
 */
function taskOf(input: unknown): unknown {
  if (input === undefined || input === null) return undefined;
  if (typeof input === 'string' || isObject(input)) return input;
  if (Array.isArray(input)) {
    for (let i = input.length - 1; i >= 0; i--) {
      const m = input[i];
      if (isObject(m) && m.role === 'user' && typeof m.content === 'string') return m.content;
    }
  }
  return text(input);
}

function readObservation(doc: JsonDocument, node: Node, record: number, traceName: string | undefined, read: ReadObservation[], b: ImportBuilder): void {
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
  const { byKind, tokens } = usageOf(usage, v);
  const metadata = isObject(v.metadata) ? v.metadata : {};
  const ordinal = read.length;
  const span: ImportSpan = {
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
    cost: role === 'llm' || role === 'agent' ? costOf(v) : undefined,
    model: str(v.model) ?? str(v.providedModelName),
    error: str(v.level) === 'ERROR' ? str(v.statusMessage) || 'error' : undefined,
    skipLabel: type,
    extra: { observation_type: type },
  };
  // What two exports of the same observation share; never its id.
  const fingerprint = JSON.stringify([type, name, v.startTime ?? null, v.endTime ?? null, v.input ?? null, v.output ?? null, usage, v.model ?? null, v.level ?? null, v.statusMessage ?? null, metadata]);
  read.push({ span, fingerprint, timed: typeof v.startTime === 'string' && v.startTime !== '' });
}

/**
 * The US dollars recorded for an observation: `costDetails` (its `total`, else the sum of its other
 * keys), else `totalCost`, else `calculatedTotalCost` (the cost Langfuse derived from its model
 * prices), else the calculated input and output costs. Undefined when none is recorded.
 */
function costOf(v: Record<string, unknown>): number | undefined {
  const details = isObject(v.costDetails) ? v.costDetails : {};
  const parts = Object.entries(details).filter(([k]) => k !== 'total').map(([, x]) => x);
  return recordedCost(details.total, ...parts) ?? recordedCost(v.totalCost) ?? recordedCost(v.calculatedTotalCost, v.calculatedInputCost, v.calculatedOutputCost);
}

/**
 * The tokens of an observation's usage (`usageDetails` or `usage`, and the older `promptTokens` /
 * `completionTokens`) by kind, or their recorded total alone when no kind is recorded.
 */
function usageOf(usage: Record<string, unknown>, v: Record<string, unknown>): { byKind?: TokenUsage; tokens?: number } {
  const input = num(usage.input) ?? num(v.promptTokens);
  const output = num(usage.output) ?? num(v.completionTokens);
  const total = num(usage.total);
  let cacheRead: number | undefined;
  let cacheWrite: number | undefined;
  let reasoning: number | undefined;
  for (const [k, raw] of Object.entries(usage)) {
    const n = num(raw);
    if (n === undefined || !/cache/i.test(k) && !/reasoning/i.test(k)) continue;
    if (/reasoning/i.test(k)) reasoning = (reasoning ?? 0) + n;
    else if (/creat|write/i.test(k)) cacheWrite = (cacheWrite ?? 0) + n;
    else if (/read|cached/i.test(k)) cacheRead = (cacheRead ?? 0) + n;
  }
  if (!input && !output && !cacheRead && !cacheWrite) return { tokens: total || undefined };
  const cached = (cacheRead ?? 0) + (cacheWrite ?? 0);
  const io = (input ?? 0) + (output ?? 0);
  // Which parts the recorded total counts apart: try cache and reasoning inside (as OpenTelemetry and OpenAI record them), then beside.
  const ways = [
    { cacheInside: true, reasoningInside: true },
    { cacheInside: false, reasoningInside: true },
    { cacheInside: true, reasoningInside: false },
    { cacheInside: false, reasoningInside: false },
  ];
  const way = (total !== undefined && ways.find((w) => io + (w.cacheInside ? 0 : cached) + (w.reasoningInside ? 0 : reasoning ?? 0) === total)) || ways[3];
  const out = output !== undefined && !way.reasoningInside ? output + (reasoning ?? 0) : output;
  return { byKind: usageFrom({ input, output: out, cache_read: cacheRead, cache_write: cacheWrite, reasoning }, way.cacheInside) };
}

/** Langfuse: a trace object (or list) with `observations`, or observations with `parentObservationId`. */
export const langfuseFormat: TraceFormat = {
  id: LANGFUSE_FORMAT,
  label: 'Langfuse trace (public API / UI JSON)',
  keys: ['observations', 'parentObservationId'],
  detect(t) {
    const head = t.slice(0, 1 << 16);
    if (!/^\s*[[{]/.test(head) || /"(resourceSpans|resource_spans)"\s*:/.test(head)) return false;
    return (/"observations"\s*:\s*\[/.test(head) && /"(htmlPath|parentObservationId|traceId|scores)"\s*:/.test(head)) || (/"parentObservationId"\s*:/.test(head) && /"startTime"\s*:/.test(head));
  },
  read: (t, fileName) => readLangfuse(t, fileName),
};

registerFormat(langfuseFormat, true);
