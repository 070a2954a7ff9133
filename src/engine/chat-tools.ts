/**
 * otrace's tools for language models (issue 29): the run summary, the findings with their evidence,
 * the blame and its reasons, the events in a range, and two runs compared. One definition per tool
 * (name, description, input schema in zod, the function that answers it over a trace's snapshot),
 * used by VS Code's language model tools (answered in the engine's worker: src/engine/session-store.ts)
 * and by `otrace mcp` (src/cli/mcp.ts): the facts are the same wherever they are asked.
 *
 * The facts are those the CLI and the editor show (src/analysis: run-summary, findings, blame,
 * credit; src/analysis/compare), as JSON: every event is cited by id and by index (its place in the
 * trace's events, file order), with its agent, type and line. Trace strings (tasks, messages, agent
 * names, content) are raw trace content: whoever shows them must show them as plain text. Every
 * list is capped; each answer says how many there are in all.
 * Pure: no `vscode`.
 */
import * as z from 'zod';
import { compareRuns, type Difference, type FindingOnOneSide } from '../analysis/compare';
import type { CallPricer, RunSummary } from '../analysis/run-summary';
import { runSummary } from '../analysis/run-summary';
import { whyNoBlame } from '../analysis/blame';
import type { Finding } from '../analysis/types';
import { withLaneLabels } from './lane-labels';
import { contentsOf } from './long-content';
import { eventLabel } from './record-labels';
import { findingsOfEvent, whyNoAnalysis, type TraceSnapshot } from './snapshot';
import type { ChatToolAnswer, ChatToolName, CitedEvent } from './chat-tool-names';

export type { CitedEvent } from './chat-tool-names';

export { CHAT_TOOL_NAMES, isChatToolName, type ChatToolAnswer, type ChatToolName, type ToolView } from './chat-tool-names';

/** Where the tools get their traces: the trace in view or a file, as a snapshot (parse + analysis). */
export interface ToolTraces {
  /**
   * The snapshot of the trace `file` names (a path, as the caller resolved it) or, when undefined,
   * of the trace in view. @throws ToolError when there is none (no trace in view, unreadable file, no known format).
   */
  open(file: string | undefined): TraceSnapshot;
  /**
   * The same trace read again from disk and analysed whole (content never set aside): for comparing
   * runs, and for analysing by an outcome the caller states. @throws ToolError as {@link open}.
   */
  read(file: string | undefined, outcome?: 'success' | 'failure'): TraceSnapshot;
  /** Prices model calls for the summary's cost estimate (the CLI's price data); none: no cost. */
  price?: CallPricer;
}

/** A wrong input or a trace that cannot be had: its message is the tool's answer. */
export class ToolError extends Error {}

/** One tool: what a model sees of it, and how it is answered. */
export interface ChatTool<S extends z.ZodObject = z.ZodObject> {
  name: ChatToolName;
  /** A short human title (VS Code's tool picker, MCP's `title`). */
  title: string;
  /** What it answers and when to call it: what a model reads to choose it. */
  description: string;
  input: S;
  /** The facts for a valid input. @throws ToolError for a trace that cannot be had. */
  run(traces: ToolTraces, input: z.infer<S>): Record<string, unknown>;
}

/** Evidence events listed per finding. */
export const EVIDENCE_EVENTS = 20;
/** Characters of content an event shows by default in `otrace_events`. */
export const CONTENT_CHARS = 300;

/** Event `index` of a snapshot as the tools cite it, or null when there is none. */
export function citeEvent(s: TraceSnapshot, index: number): CitedEvent | null {
  const e = s.loaded.trace.events[index];
  if (!e) return null;
  const o = s.loaded.eventOrigins.get(index);
  return { id: e.id, index, type: e.type, agent: e.agent, line: o ? o.range.start.line + 1 : null, ...(o?.file ? { file: o.file } : {}) };
}

const cite = (s: TraceSnapshot, indices: readonly number[]) => indices.map((i) => citeEvent(s, i)).filter((e) => e !== null);

/** What every answer says of the trace it read. */
function traceFacts(s: TraceSnapshot): Record<string, unknown> {
  const agents = new Set(s.loaded.trace.events.map((e) => e.agent));
  return {
    path: s.path,
    format: s.loaded.format,
    events: s.loaded.trace.events.length,
    agents: agents.size,
    // (a large file's first part: its references to events not read yet are no problems; the facts say it is a part)
    reader_problems: s.reading ? 0 : s.loaded.problems.length,
    ...(s.reading ? { partial: { bytes_read: s.reading.bytes, file_bytes: s.reading.of, read_stopped: s.reading.stopped === true } } : {}),
    ...(s.analysisError ? { analysis_error: s.analysisError } : {}),
    ...(s.analysisPending ? { analysis_pending: true } : {}),
  };
}

const FILE = z.string().min(1).optional().describe('Path of a trace file (absolute, or relative to the workspace folder or the current directory). Leave it out for the trace in view in VS Code.');

const summaryInput = z.object({ file: FILE }).strict();
const findingsInput = z
  .object({
    file: FILE,
    kind: z.enum(['stop', 'loop', 'blame', 'best_stop', 'verification']).optional().describe('Only findings of this kind.'),
    problems_only: z.boolean().default(false).describe('Leave out sound stops and plain turn or phase ends (findings with mode "ok").'),
    max: z.int().min(1).max(200).default(50).describe('Findings listed at most.'),
  })
  .strict();
/** Agents listed at most in the blame tool's credit by agent. */
const CREDIT_AGENTS = 50;

/**
 * The `max` agents with the largest absolute value, listed by value (most negative first, as the
 * blame tool lists them). O(agents · log max).
 */
function largestShares(agents: Record<string, number>, max: number): [string, number][] {
  const entries = Object.entries(agents);
  if (entries.length <= max) return entries.sort((x, y) => x[1] - y[1]);
  const top: [string, number][] = [];
  for (const e of entries) {
    if (top.length === max && Math.abs(e[1]) <= Math.abs(top[top.length - 1][1])) continue;
    let at = top.length;
    while (at > 0 && Math.abs(top[at - 1][1]) < Math.abs(e[1])) at--;
    top.splice(at, 0, e);
    if (top.length > max) top.pop();
  }
  return top.sort((x, y) => x[1] - y[1]);
}

const blameInput = z
  .object({
    file: FILE,
    outcome: z.enum(['success', 'failure']).optional().describe("The run's outcome as you know it, for a trace that records none (a benchmark log): blame is found only for a failed run."),
    max: z.int().min(1).max(100).default(10).describe('Most blamed events listed at most.'),
  })
  .strict();
const eventsInput = z
  .object({
    file: FILE,
    from: z.int().min(0).default(0).describe('Index of the first event (0 = the first event of the trace, in file order).'),
    to: z.int().min(0).optional().describe('Index of the last event wanted (inclusive); default: as many as `limit` allows.'),
    by_agent: z.string().optional().describe('Only the events of this agent (its name as the events give it).'),
    limit: z.int().min(1).max(200).default(50).describe('Events on this page at most; `next_from` gives the next page.'),
    content_chars: z.int().min(0).max(20_000).default(CONTENT_CHARS).describe('Characters of each event content shown; the rest is cut (content_length says how long it is).'),
  })
  .strict();
const compareInput = z
  .object({
    a: FILE.describe('Path of run A; leave it out for the trace in view in VS Code.'),
    b: z.string().min(1).describe('Path of run B, the run compared with A.'),
    max: z.int().min(1).max(200).default(20).describe('Differences, agent pairs and one-sided findings listed at most, each.'),
  })
  .strict();

/** One finding with its evidence, as `otrace_findings` and `/explain` give it. */
function findingFacts(s: TraceSnapshot, f: Finding, number: number): Record<string, unknown> {
  return {
    number,
    kind: f.kind,
    severity: f.severity,
    ...(f.mode ? { mode: f.mode } : {}),
    ...(f.scope ? { scope: f.scope } : {}),
    ...(f.sound !== undefined ? { sound: f.sound } : {}),
    ...(f.confidence ? { confidence: f.confidence } : {}),
    ...(f.loop ? { loop: f.loop } : {}),
    ...(f.tokens !== undefined ? { wasted_tokens: f.tokens } : {}),
    inline: f.inline,
    message: f.message,
    event: citeEvent(s, f.events[0]),
    evidence: cite(s, f.events.slice(0, EVIDENCE_EVENTS)),
    evidence_count: f.events.length,
  };
}


/** The run summary with the cost when the caller prices, agents labelled as the graph labels their lanes. */
function summaryOf(s: TraceSnapshot, price: CallPricer | undefined): RunSummary | null {
  // the snapshot's own summary was made before long content was set aside; a priced one is of a trace read whole
  const run = price && s.analysis ? runSummary(s.loaded, s.analysis, { price }) : s.run;
  return run ? withLaneLabels(run, s.loaded.trace) : null;
}

const summaryTool: ChatTool<typeof summaryInput> = {
  name: 'otrace_summary',
  title: 'otrace: run summary',
  description:
    'The summary of a multi-agent or coding-agent run from its trace file (Claude Code, Codex, OpenTelemetry, otrace JSONL, Who&When, MAST...): what was asked, how and why it stopped (the stop event), the outcome the trace records, duration, tokens by kind, the cost the trace records (else estimated from list prices), each agent with what it was asked, and the main problems. Call it first to learn what a run did.',
  input: summaryInput,
  run(traces, input) {
    const s = traces.open(input.file);
    const run = summaryOf(s, traces.price);
    const end = run?.ended;
    const events = s.loaded.trace.events;
    let endIndex = events.length - 1;
    while (end && endIndex >= 0 && events[endIndex].id !== end.event) endIndex--;
    return { trace: traceFacts(s), summary: run, stop_event: end && endIndex >= 0 ? citeEvent(s, endIndex) : null, findings: s.findings.length };
  },
};

const findingsTool: ChatTool<typeof findingsInput> = {
  name: 'otrace_findings',
  title: 'otrace: findings with evidence',
  description:
    "otrace's findings on a run with their evidence events: each stop with its verdict (sound, premature, delayed, no stop) and confidence, loops (repeated tool calls, ping-pong, repeated sequences) with the tokens they wasted, verification failures, the decisive error of a failed run, the hindsight best stop. Each finding has a number (for /explain), its message and the events it rests on.",
  input: findingsInput,
  run(traces, input) {
    const s = traces.open(input.file);
    const chosen = s.findings.map((f, k) => [f, k] as const).filter(([f]) => (!input.kind || f.kind === input.kind) && (!input.problems_only || f.mode !== 'ok'));
    return { trace: traceFacts(s), total: chosen.length, findings: chosen.slice(0, input.max).map(([f, k]) => findingFacts(s, f, k)) };
  },
};

const blameTool: ChatTool<typeof blameInput> = {
  name: 'otrace_blame',
  title: 'otrace: blame and its reasons',
  description:
    "Who and which step is to blame for a failed run: the decisive error (the agent, the event, what pointed at it and how sure), the run's outcome and where it comes from, and the message-level credit: each agent's share and the events with the most blame. Pass `outcome: \"failure\"` for a run you know failed when its trace records no outcome.",
  input: blameInput,
  run(traces, input) {
    const s = input.outcome ? traces.read(input.file, input.outcome) : traces.open(input.file);
    const a = s.analysis;
    if (!a) return { trace: traceFacts(s), outcome: null, blame: null, why_none: whyNoAnalysis(s) };
    const b = a.blame;
    const credit = a.credit;
    const byValue = credit.by_index.map((v, i) => [v, i] as const).filter(([v]) => Number.isFinite(v) && v !== 0);
    // signed credit: blame is the negative share; unsigned (no outcome): influence, the largest first
    const ranked = credit.signed ? byValue.filter(([v]) => v < 0).sort((x, y) => x[0] - y[0]) : byValue.sort((x, y) => y[0] - x[0]);
    return {
      trace: traceFacts(s),
      outcome: a.outcome,
      blame: b && { agent: b.agent, event: citeEvent(s, b.index), basis: b.basis, message: b.message, ...(b.p !== undefined ? { p: b.p } : {}), ...(b.agentShare !== undefined ? { agent_share: b.agentShare } : {}) },
      ...(b ? {} : { why_none: whyNoBlame(a.outcome, 'give `outcome: "failure"`') }),
      credit: {
        signed: credit.signed,
        meaning: credit.signed ? "each event's share of the run's outcome (+ success, − failure), traced back along the events that led to it; an estimate" : 'no outcome recorded: how much of what the run ended with built on each event (influence, neither credit nor blame)',
        method: credit.method,
        // the agents with the largest shares (a run of a million agents: the first CREDIT_AGENTS), and how many there are
        agents: largestShares(credit.agents, CREDIT_AGENTS).map(([agent, value]) => ({ agent, value })),
        agent_count: Object.keys(credit.agents).length,
        [credit.signed ? 'most_blamed' : 'most_influential']: ranked.slice(0, input.max).map(([value, i]) => ({ ...citeEvent(s, i), value })),
      },
    };
  },
};

const eventsTool: ChatTool<typeof eventsInput> = {
  name: 'otrace_events',
  title: 'otrace: events in a range',
  description:
    "The events of a run in a range of indices (file order), a page at a time: each with id, index, type, agent, time, tool, its line, the findings it takes part in, and its content cut to `content_chars`. Use it to read the evidence a finding or the blame cites (their events' indices), or an agent's steps.",
  input: eventsInput,
  run(traces, input) {
    const s = traces.open(input.file);
    const events = s.loaded.trace.events;
    const last = Math.min(events.length - 1, input.to ?? Number.MAX_SAFE_INTEGER);
    const page: number[] = [];
    let i = input.from;
    for (; i <= last && page.length < input.limit; i++) if (input.by_agent === undefined || events[i].agent === input.by_agent) page.push(i);
    while (i <= last && input.by_agent !== undefined && events[i].agent !== input.by_agent) i++; // the next page starts at a matching event
    const contents = contentsOf(s, page);
    return {
      trace: traceFacts(s),
      from: input.from,
      to: last,
      next_from: i <= last ? i : null,
      events: page.map((index, k) => {
        const e = events[index];
        const text = contents[k];
        return {
          ...citeEvent(s, index),
          t: e.t,
          ...(e.duration_s !== undefined ? { duration_s: e.duration_s } : {}),
          ...(e.to ? { to: e.to } : {}),
          ...(e.tool ? { tool: e.tool } : {}),
          ...(e.reason !== undefined ? { reason: e.reason } : {}),
          label: eventLabel(s, index, () => text),
          content: typeof text === 'string' ? text.slice(0, input.content_chars) : null,
          content_length: typeof text === 'string' ? text.length : 0,
          findings: findingsOfEvent(s, index).map((f) => ({ number: f, kind: s.findings[f].kind, inline: s.findings[f].inline })),
        };
      }),
    };
  },
};

const compareTool: ChatTool<typeof compareInput> = {
  name: 'otrace_compare',
  title: 'otrace: compare two runs',
  description:
    'Two runs of the same task compared event by event: where they first diverge (the event on each side), how each ended and with what outcome, how many steps are the same, only in one run, changed or moved, per agent pair what changed (events, tool calls, failed calls, tokens, time), and the findings one run has alone.',
  input: compareInput,
  run(traces, input) {
    const a = traces.read(input.a);
    const b = traces.read(input.b);
    if (!a.analysis || !b.analysis) throw new ToolError(whyNoAnalysis(a.analysis ? b : a, a.analysis ? 'B' : 'A'));
    const c = compareRuns({ loaded: a.loaded, analysis: a.analysis }, { loaded: b.loaded, analysis: b.analysis });
    const difference = (d: Difference) => ({ kind: d.kind, a: d.a_index === null ? null : citeEvent(a, d.a_index), b: d.b_index === null ? null : citeEvent(b, d.b_index), agent_pair: d.agents });
    const oneSide = (s: TraceSnapshot, list: FindingOnOneSide[]) => ({ total: list.length, findings: list.slice(0, input.max).map((f) => ({ kind: f.kind, severity: f.severity, ...(f.mode ? { mode: f.mode } : {}), message: f.message, event: citeEvent(s, f.index) })) });
    return {
      a: { trace: traceFacts(a), ...c.a },
      b: { trace: traceFacts(b), ...c.b },
      first_divergence: c.first_divergence && difference(c.first_divergence),
      steps: { same: c.same, only_in_a: c.only_in_a.length, only_in_b: c.only_in_b.length, changed: c.changed.length, moved: c.moved.length },
      differences: { total: c.differences.length, first: c.differences.slice(0, input.max).map(difference) },
      agents: {
        total: c.agents.length,
        pairs: c.agents.slice(0, input.max).map((p) => ({ a: p.a, b: p.b, paired_by: p.paired_by, a_stats: p.a_stats, b_stats: p.b_stats, deltas: p.deltas, only_in_a: p.only_in_a, only_in_b: p.only_in_b, changed: p.changed, moved: p.moved })),
      },
      findings: { only_in_a: oneSide(a, c.findings.only_in_a), only_in_b: oneSide(b, c.findings.only_in_b) },
    };
  },
};

/** The tools, by name, in the order of {@link CHAT_TOOL_NAMES}. */
export const CHAT_TOOLS: Record<ChatToolName, ChatTool> = {
  otrace_summary: summaryTool as unknown as ChatTool,
  otrace_findings: findingsTool as unknown as ChatTool,
  otrace_blame: blameTool as unknown as ChatTool,
  otrace_events: eventsTool as unknown as ChatTool,
  otrace_compare: compareTool as unknown as ChatTool,
};

/** A tool's input schema as JSON Schema (what package.json's `inputSchema` holds and MCP lists). */
export function toolInputJsonSchema(name: ChatToolName): Record<string, unknown> {
  const schema = z.toJSONSchema(CHAT_TOOLS[name].input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/**
 * Answers one tool call: the input checked against the tool's schema, then its facts, or why there
 * are none (never throws on a bad input or a trace that cannot be had).
 * @param name the tool; @param input its arguments as the model gave them.
 */
export function runChatTool(traces: ToolTraces, name: string, input: unknown): ChatToolAnswer {
  if (!Object.prototype.hasOwnProperty.call(CHAT_TOOLS, name)) return { error: `no tool named ${JSON.stringify(name)}` };
  const tool = CHAT_TOOLS[name as ChatToolName];
  const parsed = tool.input.safeParse(input ?? {});
  if (!parsed.success) return { error: `${name}: ${z.prettifyError(parsed.error)}` };
  try {
    return { result: tool.run(traces, parsed.data) };
  } catch (err) {
    if (err instanceof ToolError) return { error: err.message };
    throw err;
  }
}
