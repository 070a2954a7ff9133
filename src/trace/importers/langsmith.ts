/**
 * Importer for LangSmith runs: one run with its nested `child_runs` (`client.read_run(id,
 * load_child_runs=True)`, the UI's run JSON), an array of runs (`list(client.list_runs(...))` dumped as
 * JSON), `{"runs": [...]}`, or JSON Lines of runs. Format: LangSmith run data format
 * (https://docs.smith.langchain.com/reference/data_formats/run_data_format): id, name, run_type
 * (llm, chain, tool, retriever, embedding, prompt, parser), start_time / end_time (ISO 8601, UTC when
 * no zone is written), inputs, outputs, error, extra.metadata, parent_run_id, trace_id,
 * dotted_order, child_runs, prompt_tokens / completion_tokens / total_tokens, total_cost /
 * prompt_cost / completion_cost (US dollars; read on model runs only: a chain's sums its children's).
 *
 * Parent: `parent_run_id`, else the run it is nested in (`child_runs`), else the second-to-last
 * segment of `dotted_order` (`<time>Z<run id>` segments joined by dots).
 * run_type -> role (./span-import.ts): llm and embedding llm; tool and retriever tool (tool = its
 * name); chain: an agent when it is a LangGraph node (`extra.metadata.langgraph_node` = its name)
 * whose node calls a model (some run of that node has an llm run below it), or names its agent
 * (`lc_agent_name`, `agent_name`), or is a root with no agent run under it (the run's agent: an
 * AgentExecutor, a chain that calls the model itself), else an orchestrator step; prompt, parser and others: skipped
 * (counted). A run's `error` marks it failed. record = the run's 0-based index in the file in
 * document order (a nested run after its parent), range = the run object (with its children).
 */
import type { Node } from 'jsonc-parser';
import { registerFormat, type TraceFormat } from '../formats';
import { LineIndex, type LoadedTrace, type Range } from '../model';
import { isComplete, items, nodeRange, propertyOf, sharedValueIn, type JsonDocument } from '../json-positions';
import { ImportBuilder } from './json-import';
import { buildSpanTrace, forEachDocument, num, recordedCost, str, text, timeNs, type ImportSpan, type SpanRole } from './span-import';
import { usageFrom } from '../tokens';

export const LANGSMITH_FORMAT = 'langsmith';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface RunRec {
  v: Record<string, unknown>;
  range: Range;
  record: number;
  parent?: string;
}

/** Reads LangSmith runs. Never throws: problems are returned with positions. */
export function readLangSmith(source: string, fileName: string): LoadedTrace {
  const b = new ImportBuilder();
  const runs: RunRec[] = [];
  let record = 0;
  const visit = (doc: JsonDocument, node: Node, nestedIn: string | undefined): void => {
    const range = nodeRange(doc, node);
    const index = record++;
    const v = isComplete(doc, node) ? sharedValueIn(doc, node) : undefined;
    const id = isObject(v) ? str(v.id) : undefined;
    if (!isObject(v) || !id) {
      b.problem('error', `run ${index} ${!isComplete(doc, node) ? 'is cut off' : isObject(v) ? 'has no "id"' : 'must be an object'}; skipped`, range);
      if (isObject(v) || !isComplete(doc, node)) for (const c of items(propertyOf(node, 'child_runs'))) visit(doc, c, undefined);
      return;
    }
    runs.push({ v, range, record: index, parent: str(v.parent_run_id) ?? nestedIn ?? parentFromDottedOrder(str(v.dotted_order)) });
    for (const c of items(propertyOf(node, 'child_runs'))) visit(doc, c, id);
  };
  forEachDocument(source, new LineIndex(source), (doc) => {
    b.problems.push(...doc.problems);
    const root = doc.root;
    if (!root) return;
    const list = root.type === 'array' ? items(root) : propertyOf(root, 'runs') ? items(propertyOf(root, 'runs')) : [root];
    for (const node of list) visit(doc, node, undefined);
  });
  // LangGraph nodes that call a model act as agents.
  const byId = new Map(runs.map((r) => [str(r.v.id)!, r]));
  const nodeOf = (r: RunRec) => str(isObject(r.v.extra) && isObject(r.v.extra.metadata) ? r.v.extra.metadata.langgraph_node : undefined);
  const agentNodes = new Set<string>();
  for (const r of runs) {
    if (r.v.run_type !== 'llm') continue;
    for (let p = r.parent ? byId.get(r.parent) : undefined; p; p = p.parent ? byId.get(p.parent) : undefined) {
      const node = nodeOf(p);
      if (p.v.run_type === 'chain' && node && node === str(p.v.name)) {
        agentNodes.add(node);
        break;
      }
    }
  }
  const spans = runs.map((r, ordinal) => toSpan(r, ordinal, agentNodes, nodeOf(r)));
  runAgents(spans);
  return buildSpanTrace(spans, b, fileName, { format: LANGSMITH_FORMAT, metaKey: 'langsmith', noun: 'run' });
}

/**
 * A root chain with no agent run under it is the run's agent, named by its name: a LangChain
 * AgentExecutor, or a chain that calls the model and its tools itself. Else the run had no agent
 * (its events in a lane of the trace's name) and its end no stop: a finished run read as "no stop".
 * Changes `spans`.
 */
function runAgents(spans: ImportSpan[]): void {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const hasAgentBelow = new Set<ImportSpan>();
  for (const s of spans) {
    if (s.role !== 'agent') continue;
    for (let p = s.parentSpanId ? byId.get(s.parentSpanId) : undefined; p && !hasAgentBelow.has(p); p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) hasAgentBelow.add(p);
  }
  for (const s of spans) {
    if (s.role !== 'chain' || (s.parentSpanId && byId.has(s.parentSpanId)) || hasAgentBelow.has(s)) continue;
    s.role = 'agent';
    s.agent = s.name || undefined;
  }
}

/** The parent run id a dotted_order names: the run id of its second-to-last segment. */
function parentFromDottedOrder(order: string | undefined): string | undefined {
  const parts = order?.split('.') ?? [];
  if (parts.length < 2) return undefined;
  return /^\d{8}T\d{6,12}Z(.+)$/.exec(parts[parts.length - 2])?.[1];
}

function toSpan(r: RunRec, ordinal: number, agentNodes: Set<string>, node: string | undefined): ImportSpan {
  const v = r.v;
  const id = str(v.id)!;
  const name = str(v.name) ?? '';
  const runType = str(v.run_type) ?? '';
  const extra = isObject(v.extra) ? v.extra : {};
  const metadata = isObject(extra.metadata) ? extra.metadata : {};
  const named = str(metadata.lc_agent_name) ?? str(metadata.agent_name);
  let role: SpanRole = 'other';
  if (runType === 'llm' || runType === 'embedding') role = 'llm';
  else if (runType === 'tool' || runType === 'retriever') role = 'tool';
  else if (runType === 'chain') role = (node && node === name && agentNodes.has(node)) || (named && named === name) ? 'agent' : 'chain';
  const prompt = num(v.prompt_tokens);
  const completion = num(v.completion_tokens);
  const params = isObject(extra.invocation_params) ? extra.invocation_params : {};
  const outputs = isObject(v.outputs) ? v.outputs : undefined;
  return {
    ordinal,
    origin: { range: r.range, record: r.record },
    traceId: str(v.trace_id) ?? '',
    spanId: id,
    id,
    parentSpanId: r.parent,
    start: timeNs(v.start_time),
    end: timeNs(v.end_time),
    links: [],
    name,
    role,
    agent: role === 'agent' ? named ?? name : undefined,
    tool: role === 'tool' ? name || 'tool' : undefined,
    input: text(isObject(v.inputs) && Object.keys(v.inputs).length === 1 ? Object.values(v.inputs)[0] : v.inputs),
    output: text(outputs && Object.keys(outputs).length === 1 ? Object.values(outputs)[0] : outputs),
    tokens: role === 'llm' && prompt === undefined && completion === undefined ? num(v.total_tokens) : undefined,
    usage: role === 'llm' ? usageFrom({ input: prompt, output: completion }, true) : undefined,
    // A model run's own cost; a chain's total_cost sums its children's, so it is never read.
    cost: role === 'llm' ? recordedCost(v.total_cost, v.prompt_cost, v.completion_cost) : undefined,
    model: str(metadata.ls_model_name) ?? str(params.model) ?? str(params.model_name),
    error: str(v.error) || undefined,
    skipLabel: runType ? `${runType} ${name}` : name,
    extra: { run_type: runType },
  };
}

/** LangSmith: runs with `run_type` and one of `dotted_order`, `parent_run_id`, `child_runs`. */
export const langSmithFormat: TraceFormat = {
  id: LANGSMITH_FORMAT,
  label: 'LangSmith runs (JSON / JSON Lines)',
  keys: ['run_type'],
  detect(t) {
    const head = t.slice(0, 1 << 16);
    return /^\s*[[{]/.test(head) && /"run_type"\s*:/.test(head) && /"(dotted_order|parent_run_id|child_runs)"\s*:/.test(head);
  },
  read: (t, fileName) => readLangSmith(t, fileName),
};

registerFormat(langSmithFormat, true);
