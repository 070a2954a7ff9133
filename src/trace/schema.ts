/**
 * The canonical orchestration-trace model (zod 4).
 *
 * A superset of the survey's JSON Schema (C. Zhang 2026, "Reinforcement Learning for LLM-based
 * Multi-Agent Systems through Orchestration Traces", arXiv 2605.02801; trace-schema/trace_schema.json
 * in xxzcc/awesome-llm-mas-rl): every trace valid under that schema parses here unchanged, and the
 * survey's eight atomic events (spawn, delegate, communicate, tool_use, return, aggregate, reward,
 * stop) are all representable. Unknown properties on traces, events and edges are kept.
 *
 * This module imports nothing from `vscode`: it runs in the host, the CLI and workers.
 */
import * as z from 'zod';

export { ADDED_EVENT_TYPES, canonicalType, EVENT_TYPE_ALIASES, EVENT_TYPES, SURVEY_EVENT_TYPES, type EventType } from './event-types';
import { EVENT_TYPES } from './event-types';

/** The survey's eight edge types, plus `link` (an OpenTelemetry span link: related, not parentage). */
export const EDGE_TYPES = [
  'temporal',
  'causal',
  'spawn',
  'message',
  'tool_dependency',
  'return',
  'aggregate',
  'safety_flow',
  'link',
] as const;

/**
 * Subtypes of existing event types (docs/model.md): what an event is beyond its `type`.
 * - local_command (message): a harness command the user ran (`/compact`) and its output;
 * - meta (message): a row the harness injected; placeholder (message): a synthetic row that is no model output;
 * - interruption (stop, user_abort): the user interrupted; api_error (stop): a synthetic API-error row;
 * - compaction (orchestrator_decision): the context was compacted, the summary is the content;
 * - missing_parent (orchestrator_decision): stands for a parent span the file does not hold.
 */
export const EVENT_KINDS = ['local_command', 'meta', 'placeholder', 'interruption', 'api_error', 'compaction', 'missing_parent'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The state of a tool call: refused by the user, no result in the file, or maybe still running (file being written). */
export const CALL_STATUSES = ['denied', 'no_result', 'in_progress'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** Kinds of rows that are not an agent's output: never a final answer, no credit, no model call. */
export const NOT_AGENT_OUTPUT_KINDS: ReadonlySet<string> = new Set(['local_command', 'meta', 'placeholder', 'missing_parent']);
export type EdgeType = (typeof EDGE_TYPES)[number];

/** The survey's topology values. */
export const TOPOLOGIES = [
  'centralized',
  'planner_executor_critic',
  'debate',
  'swarm',
  'hierarchical',
  'harness',
  'mixed',
  'unknown',
] as const;
export type Topology = (typeof TOPOLOGIES)[number];

/**
 * Standard stop reasons (the survey's gap "stop events recorded with a standard reason").
 * - task_complete: the agent said the task is done; quality_met: a verifier/threshold passed;
 * - budget_exhausted: tokens/cost/context budget; max_turns: a turn limit; timeout: wall clock;
 * - error: a crash or unrecoverable failure; user_abort: a human stopped it;
 * - loop_breaker: a loop detector stopped it; unknown: not recorded.
 */
export const STOP_REASONS = [
  'task_complete',
  'quality_met',
  'budget_exhausted',
  'max_turns',
  'timeout',
  'error',
  'user_abort',
  'loop_breaker',
  'unknown',
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

const nonNegative = z.number().min(0);

/** Where the prompt that produced an event lives, relative to the trace file. Line/column 1-based. */
export const SourceRefSchema = z.looseObject({
  path: z.string().min(1).describe('Prompt file that produced the event, relative to the trace file.'),
  line: z.number().int().min(1).optional().describe('1-based line in that file.'),
  column: z.number().int().min(1).optional().describe('1-based column in that file.'),
});
export type SourceRef = z.infer<typeof SourceRefSchema>;

/**
 * Tokens of one model call by kind, as its provider recorded them (docs/model.md): `input` read
 * fresh (not from a cache), `cache_read` input read from a prompt cache, `cache_write` input
 * written to it, `output` generated (reasoning included), `reasoning` the part of `output` spent
 * reasoning. On the event that is the model call, once per call; its context (`input`,
 * `cache_read`, `cache_write`) is the call's, not the event's own output.
 */
export const TokenUsageSchema = z.looseObject({
  input: nonNegative.optional().describe('Input tokens read fresh (not from a prompt cache).'),
  output: nonNegative.optional().describe('Output tokens generated (reasoning included).'),
  cache_read: nonNegative.optional().describe('Input tokens read from a prompt cache.'),
  cache_write: nonNegative.optional().describe('Input tokens written to a prompt cache.'),
  cache_write_1h: nonNegative.optional().describe('The part of cache_write written to a one-hour cache (Anthropic: priced at twice the input rate, the five-minute cache at 1.25 times).'),
  reasoning: nonNegative.optional().describe('The part of output spent reasoning.'),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/**
 * One event of the temporal event graph. `t` is seconds since the trace start (>= 0).
 * `stop` events require `reason`; `reward` events require `value` (checked by {@link EventSchema}).
 */
export const EventObjectSchema = z.looseObject({
  id: z.string().min(1),
  t: nonNegative.describe('Seconds since the start of the trace.'),
  type: z.enum(EVENT_TYPES),
  agent: z.string().min(1).describe('The agent (lane) the event belongs to.'),
  role: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  tool: z.string().optional(),
  content_ref: z.string().optional().describe('Pointer or hash for the content; raw text may be omitted.'),
  trusted: z.boolean().optional(),
  content: z.string().optional().describe('Inline text of the message, call or result.'),
  parent: z.string().optional().describe('Id of the event this one belongs to (e.g. the spawn).'),
  causes: z.array(z.string()).optional().describe('Ids of the events that caused this one.'),
  tokens: nonNegative.optional().describe("Tokens of this event's own: for a model call, the output it generated, not the context it read (that is in usage)."),
  cost: nonNegative.optional().describe('Money spent by this event (USD).'),
  duration_s: nonNegative.optional().describe('Seconds the event took.'),
  credit: z.number().optional().describe('Credit given by the producer; shown as given.'),
  source: SourceRefSchema.optional(),
  reason: z.enum(STOP_REASONS).optional().describe('stop: why the run stopped.'),
  detail: z.string().optional().describe('stop: free text about the decision.'),
  decided_by: z.string().optional().describe('stop: the agent, rule or human that decided.'),
  value: z.number().optional().describe('reward: the reward value.'),
  channel: z.string().optional().describe('reward: team, process, tool, orchestration, ...'),
  target: z.string().optional().describe('reward: the event or agent it scores.'),
  kind: z.enum(EVENT_KINDS).optional().describe('Subtype of the event type (docs/model.md): local_command, meta, placeholder, interruption, api_error, compaction, missing_parent.'),
  call_status: z.enum(CALL_STATUSES).optional().describe('tool_call: denied by the user, no_result in the file, or in_progress (the file is still being written).'),
  open: z.boolean().optional().describe('The span never ended in the file: duration unknown.'),
  trace_id: z.string().optional().describe('The trace this event belongs to, when the file holds several traces (docs/model.md).'),
  clock_skew_s: z.number().optional().describe('Seconds this event starts before the event that caused it (negative): clock skew, kept visible.'),
  usage: TokenUsageSchema.optional().describe('Model calls: tokens of the call by kind (input, output, cache_read, cache_write, reasoning), once per call.'),
});

/** An event with the per-type requirements applied. */
export const EventSchema = EventObjectSchema.superRefine((event, ctx) => {
  if (event.type === 'stop' && event.reason === undefined) {
    ctx.addIssue({ code: 'custom', path: ['reason'], message: 'a stop event needs a "reason"' });
  }
  if (event.type === 'reward' && event.value === undefined) {
    ctx.addIssue({ code: 'custom', path: ['value'], message: 'a reward event needs a numeric "value"' });
  }
});
export type TraceEvent = z.infer<typeof EventObjectSchema>;

/** A typed edge between two events, by id. */
export const EdgeSchema = z.looseObject({
  src: z.string().min(1),
  dst: z.string().min(1),
  type: z.enum(EDGE_TYPES),
});
export type TraceEdge = z.infer<typeof EdgeSchema>;

/** Trace-level costs: tokens, seconds, counts, US dollars; other numeric keys allowed. */
export const CostsSchema = z.looseObject({
  tokens: nonNegative.optional(),
  wall_clock_s: nonNegative.optional(),
  tool_calls: nonNegative.optional(),
  messages: nonNegative.optional(),
  usd: nonNegative.optional().describe('US dollars the run spent, as its tracer recorded them (not an estimate).'),
});

/** Trace fields other than events and edges (the JSONL header line). */
export const TraceHeaderSchema = z.looseObject({
  trace_id: z.string().min(1).optional(),
  task_id: z.string().min(1).optional(),
  task: z
    .unknown()
    .optional()
    .describe('What was asked (text, or an object with `question`, `prompt`, `instruction` or `description`), when `metadata.task` records none: the run card\'s task.'),
  system: z.string().optional(),
  topology: z.enum(TOPOLOGIES).optional(),
  rewards: z.record(z.string(), z.number()).optional(),
  costs: CostsSchema.optional(),
  metrics: z.record(z.string(), z.number()).optional(),
  outcome_source: z
    .string()
    .optional()
    .describe('Where `metrics.task_success` comes from, in the words of the file it was read from (e.g. `is_correct: false`): what the outcome names as its source.'),
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Anything else: importer details, ground-truth labels (never analysis input).'),
});
export type TraceHeader = z.infer<typeof TraceHeaderSchema>;

/** A whole trace document. */
export const TraceSchema = TraceHeaderSchema.extend({
  events: z.array(EventSchema),
  edges: z.array(EdgeSchema).optional(),
});
export type Trace = TraceHeader & { events: TraceEvent[]; edges?: TraceEdge[] };
