/**
 * The run summary (issue 26): what a run was asked, how it ended, what it spent, who did what and
 * what went wrong, from a loaded trace and its analysis. `otrace summary` prints it; the graph will
 * show it at its top.
 *
 * Pure (no `vscode`, no price data): the caller passes the pricing of a model call
 * ({@link SummaryOptions.price}), so that the price library stays out of bundles that do not price.
 * Strings are trace content, raw (one line, clipped, controls kept): the caller makes them safe for
 * where it shows them.
 */
import type { LoadedTrace } from '../trace/model';
import { canonicalType } from '../trace/event-types';
import { NOT_AGENT_OUTPUT_KINDS, type TokenUsage, type TraceEvent } from '../trace/schema';
import { TOKEN_KINDS, tokenTotals, usageOf, type TokenKind } from '../trace/tokens';
import { timeUnitOf, type TimeUnit } from '../trace/units';
import type { Analysis, Finding, StopScope } from './types';

/** Tokens by kind, each model call counted once; `null` for a kind no call recorded (not a measured 0). */
export type SummaryTokens = Record<TokenKind, number | null>;

/** How the run ended: its last stop (by time) as the analysis found it. */
export interface SummaryEnd {
  /** Id of the stop event (or of the last event when the trace records no stop). */
  event: string;
  /** What the stop ends: `turn` for a hand-back to the user (Claude Code, Codex), `run`, `phase`. */
  scope: StopScope;
  /** The stop reason (recorded, else inferred), e.g. `task_complete`. */
  reason: string;
  /** The first words (at most {@link END_TEXT_CHARS} characters) of the final answer or the last agent output; `''` when there is none. */
  text: string;
  /**
   * False when the trace records no stop event at the end: `event` is then the run's last event (a
   * tool result, a message…), `reason` the inferred one, and `text` the agent's last words before it,
   * never the last event's own content (a tool's output is not how the run ended).
   */
  recorded: boolean;
}

/** One agent (lane) of the run. */
export interface SummaryAgent {
  /** The lane's name, e.g. `main`, `Explore:a93ccab`. */
  name: string;
  /** What kind of agent it was asked to be, e.g. `Explore: Find the sync code` (Claude Code's Agent/Task `subagent_type` and `description`); null when the trace says nothing. */
  label: string | null;
  /** What it was asked: the prompt it was spawned with, or the first message addressed to it (one line, clipped); null when none is found. */
  task: string | null;
  /** Events in its lane. */
  events: number;
  /** Tokens of its model calls by kind. */
  tokens: SummaryTokens;
}

/** An estimated cost of the run's model calls. */
export interface SummaryCost {
  /** Estimated US dollars of the calls that could be priced (list prices; not a bill). */
  usd: number;
  /** Always true: the cost is estimated from list prices, never recorded. */
  estimate: true;
  /** The models priced, in order of first use. */
  models: string[];
  /** Model calls with tokens whose model is unknown or has no price: left out of `usd`. */
  unpriced_calls: number;
}

/** The run summary (`otrace summary FILE --json` prints it as is). */
export interface RunSummary {
  /** What was asked: the recorded task, else the first user prompt (one line, at most {@link TASK_CHARS} characters); `''` when none is found or the trace's `metadata.task_unknown` says it records none. */
  task: string;
  /** The run's last stop; null for a trace without events. */
  ended: SummaryEnd | null;
  /** The outcome the trace records (never ground-truth labels); null when it records none. */
  outcome: { status: 'success' | 'failure' | 'partial'; source: string } | null;
  /** From the first event's start to the last event's end: seconds, or steps for a trace without a clock. */
  duration: { value: number; unit: TimeUnit };
  /** Tokens by kind over all model calls. */
  tokens: SummaryTokens;
  /**
   * The sum of the events' own `tokens` (a count with no kind: hand-written and benchmark traces,
   * and what the loop findings' token costs add up); null when no event records one. Shown when no
   * call recorded tokens by kind, so the summary never says "no tokens" beside a loop's "550 tokens".
   */
  event_tokens: number | null;
  /** Estimated cost where the model is known; null when no call could be priced. */
  cost: SummaryCost | null;
  /**
   * The agents, in order of their first event: all of them up to {@link MAX_AGENTS}, else the
   * MAX_AGENTS with the most events (a trace of 1M agents lists 50, `agent_count` says how many).
   */
  agents: SummaryAgent[];
  /** How many agents the run has (`agents` lists at most {@link MAX_AGENTS} of them). */
  agent_count: number;
  /** The analysis' problems (sound stops and plain turn ends left out), most severe first, at most {@link MAX_FINDINGS}. */
  findings: { kind: Finding['kind']; severity: Finding['severity']; message: string }[];
}

/** Prices one model call in US dollars: null when the model is unknown to the price data. */
export type CallPricer = (model: string, usage: TokenUsage) => number | null;

export interface SummaryOptions {
  /** Pricing of one model call; without it the summary has no cost. */
  price?: CallPricer;
}

/** Longest task kept (characters): the rest is cut with `…`. */
export const TASK_CHARS = 4000;
/** Longest agent task kept (characters). */
export const AGENT_TASK_CHARS = 300;
/** Longest end text kept (characters). */
export const END_TEXT_CHARS = 200;
/** Findings kept. */
export const MAX_FINDINGS = 5;
/** Agents listed at most (the busiest): the summary stays small whatever the number of agents. */
export const MAX_AGENTS = 50;

const SEVERITY_RANK: Record<Finding['severity'], number> = { error: 0, warning: 1, info: 2 };
/** Senders that are the user asking, not an agent. */
const USER_SENDERS = new Set(['user', 'human']);

/**
 * The run summary of a loaded trace and its analysis ({@link RunSummary}).
 * Never throws on odd content; an empty trace gives an empty summary.
 * Cost: O(events).
 */
export function runSummary(loaded: LoadedTrace, analysis: Analysis, options: SummaryOptions = {}): RunSummary {
  const events = loaded.trace.events;
  const metadata = (loaded.trace.metadata ?? {}) as Record<string, unknown>;
  return {
    ...runEnd(loaded, analysis),
    duration: { value: round(span(events)), unit: timeUnitOf(loaded) },
    tokens: byKind(events),
    event_tokens: eventTokens(events),
    cost: options.price ? estimateCost(events, metadata, options.price) : null,
    ...busiestAgents(events, metadata),
    findings: analysis.findings
      .filter((f) => !(f.kind === 'stop' && f.mode === 'ok'))
      .map((f, i) => ({ f, i }))
      .sort((a, b) => SEVERITY_RANK[a.f.severity] - SEVERITY_RANK[b.f.severity] || a.i - b.i)
      .slice(0, MAX_FINDINGS)
      .map(({ f }) => ({ kind: f.kind, severity: f.severity, message: f.message })),
  };
}

/**
 * The task, how the run ended and its recorded outcome: the part of {@link runSummary} a comparison
 * of runs reads (without the per-agent and token passes). Never throws; O(events) at worst.
 */
export function runEnd(loaded: LoadedTrace, analysis: Analysis): Pick<RunSummary, 'task' | 'ended' | 'outcome'> {
  const events = loaded.trace.events;
  const metadata = (loaded.trace.metadata ?? {}) as Record<string, unknown>;
  return {
    // an importer that knows the trace records no prompt says so (`task_unknown`): no message stands in for it
    task: recordedTask(metadata) ?? (typeof metadata.task_unknown === 'string' ? undefined : firstPrompt(events)) ?? '',
    ended: lastStop(events, analysis),
    // recorded outcomes only: one read from the last stop (an error) is what `ended` already says
    outcome: analysis.outcome.status === 'unknown' || analysis.outcome.source === 'given by the caller' || analysis.outcome.fromStop ? null : { status: analysis.outcome.status, source: analysis.outcome.source },
  };
}

/** `text` on one line (runs of white space as one space), cut to `max` characters with `…`, at a word end when one is near. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  let cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  if (space > max * 0.6) cut = cut.slice(0, space);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}…`;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** The task a trace's metadata records: `task` as text, or its `question`, `prompt`, `instruction` or `description` (Who&When, MAST, benchmarks). */
function recordedTask(metadata: Record<string, unknown>): string | undefined {
  const t = metadata.task;
  const text = str(t) ?? (t && typeof t === 'object' && !Array.isArray(t) ? ['question', 'prompt', 'instruction', 'task', 'description'].map((k) => str((t as Record<string, unknown>)[k])).find((v) => v !== undefined) : undefined);
  return text === undefined ? undefined : oneLine(text, TASK_CHARS);
}

/** Rows that are not a person or an agent speaking (harness commands, injected rows, placeholders). */
function notSpoken(e: TraceEvent): boolean {
  return e.kind !== undefined && NOT_AGENT_OUTPUT_KINDS.has(e.kind);
}

/** The first prompt of the user (a message from `user` or `human`, by time); else the first message's text. */
function firstPrompt(events: readonly TraceEvent[]): string | undefined {
  let best: TraceEvent | undefined;
  let firstMessage: TraceEvent | undefined;
  for (const e of events) {
    if (canonicalType(e.type) !== 'message' || notSpoken(e) || str(e.content) === undefined) continue;
    if (!firstMessage || e.t < firstMessage.t) firstMessage = e;
    const user = USER_SENDERS.has(String(e.from ?? '').toLowerCase()) || USER_SENDERS.has(String(e.role ?? '').toLowerCase());
    if (user && (!best || e.t < best.t)) best = e;
  }
  const e = best ?? firstMessage;
  return e ? oneLine(e.content!, TASK_CHARS) : undefined;
}

/** The run's last stop (latest time, then latest index) and the first words of its final answer or last agent output. */
function lastStop(events: readonly TraceEvent[], analysis: Analysis): SummaryEnd | null {
  let last: Analysis['stops'][number] | undefined;
  for (const s of analysis.stops) {
    const t = events[s.index]?.t ?? -Infinity;
    const lt = last ? (events[last.index]?.t ?? -Infinity) : -Infinity;
    if (!last || t > lt || (t === lt && s.index > last.index)) last = s;
  }
  if (!last) return null;
  const stop = events[last.index];
  let text = last.synthetic ? undefined : str(stop?.content);
  if (text === undefined && stop) {
    let out: TraceEvent | undefined;
    for (const e of events) {
      if (e.agent !== stop.agent || e.t > stop.t || canonicalType(e.type) !== 'message' || notSpoken(e) || str(e.content) === undefined) continue;
      if (e.from !== undefined && e.from !== e.agent) continue; // received, not said
      if (!out || e.t >= out.t) out = e;
    }
    text = out?.content;
  }
  return { event: last.event, scope: last.scope, reason: last.reason, text: text === undefined ? '' : oneLine(text, END_TEXT_CHARS), recorded: !last.synthetic };
}

/** From the first event's start to the last event's end (the trace's clock unit). */
function span(events: readonly TraceEvent[]): number {
  if (events.length === 0) return 0;
  let start = Infinity;
  let end = -Infinity;
  for (const e of events) {
    start = Math.min(start, e.t);
    end = Math.max(end, e.t + (e.duration_s ?? 0));
  }
  return end - start;
}

/** The sum of the events' own `tokens` (finite, positive ones); null when none records any. */
function eventTokens(events: readonly TraceEvent[]): number | null {
  let sum = 0;
  for (const e of events) if (typeof e.tokens === 'number' && Number.isFinite(e.tokens) && e.tokens > 0) sum += e.tokens;
  return sum > 0 ? sum : null;
}

/** Tokens by kind of the events' model calls, `null` for kinds none recorded. */
function byKind(events: readonly TraceEvent[]): SummaryTokens {
  const totals = tokenTotals(events).by_kind;
  const out = {} as SummaryTokens;
  for (const k of TOKEN_KINDS) out[k] = totals[k] ?? null;
  return out;
}

/** The one model of a list, when it holds exactly one string. */
function onlyModel(v: unknown): string | undefined {
  return Array.isArray(v) && v.length === 1 ? str(v[0]) : undefined;
}

/**
 * The model of a call: the event's own `model`, else its lane's only model
 * (`metadata.agents[lane].models`, Claude Code), else the trace's only model (`metadata.models`, Codex).
 */
function modelOf(e: TraceEvent, metadata: Record<string, unknown>): string | undefined {
  const own = str((e as Record<string, unknown>).model);
  if (own) return own;
  const agents = metadata.agents;
  const lane = agents && typeof agents === 'object' && Object.prototype.hasOwnProperty.call(agents, e.agent) ? (agents as Record<string, unknown>)[e.agent] : undefined;
  return (lane && typeof lane === 'object' ? onlyModel((lane as Record<string, unknown>).models) : undefined) ?? onlyModel(metadata.models);
}

/** Sums the price of every model call whose model is known to `price`; null when none is. */
function estimateCost(events: readonly TraceEvent[], metadata: Record<string, unknown>, price: CallPricer): SummaryCost | null {
  let usd = 0;
  let priced = 0;
  let unpriced = 0;
  const models: string[] = [];
  for (const e of events) {
    const u = usageOf(e);
    if (!u || !TOKEN_KINDS.some((k) => typeof (u as Record<string, unknown>)[k] === 'number')) continue;
    const model = modelOf(e, metadata);
    const p = model === undefined ? null : price(model, u);
    if (p === null || !Number.isFinite(p)) {
      unpriced++;
      continue;
    }
    usd += p;
    priced++;
    if (!models.includes(model!)) models.push(model!);
  }
  return priced === 0 ? null : { usd: Math.round(usd * 1e6) / 1e6, estimate: true, models, unpriced_calls: unpriced };
}

/**
 * The agents (lanes) of a run in order of their first event, each with its kind, what it was asked
 * and what it spent, as {@link RunSummary.agents} lists them (run comparison pairs agents by them).
 * Cost: O(events).
 */
export function runAgents(loaded: LoadedTrace): SummaryAgent[] {
  return agentsOf(loaded.trace.events, (loaded.trace.metadata ?? {}) as Record<string, unknown>);
}

/**
 * The {@link MAX_AGENTS} agents with the most events (ties: the earlier first event), in order of
 * first event, and how many agents there are. O(events + agents · log MAX_AGENTS): only the listed
 * agents' events are gathered.
 */
function busiestAgents(events: readonly TraceEvent[], metadata: Record<string, unknown>): { agents: SummaryAgent[]; agent_count: number } {
  const lanes = new Map<string, { first: number; count: number }>();
  events.forEach((e, i) => {
    const lane = lanes.get(e.agent);
    if (!lane) lanes.set(e.agent, { first: i, count: 1 });
    else {
      lane.count++;
      if (e.t < events[lane.first].t) lane.first = i;
    }
  });
  if (lanes.size <= MAX_AGENTS) return { agents: agentsOf(events, metadata), agent_count: lanes.size };
  const before = (a: { first: number; count: number }, b: { first: number; count: number }) => b.count - a.count || events[a.first].t - events[b.first].t || a.first - b.first;
  // the MAX_AGENTS busiest by one pass keeping a small sorted list (no sort of every agent)
  const top: [string, { first: number; count: number }][] = [];
  for (const entry of lanes) {
    if (top.length === MAX_AGENTS && before(entry[1], top[top.length - 1][1]) >= 0) continue;
    let at = top.length;
    while (at > 0 && before(entry[1], top[at - 1][1]) < 0) at--;
    top.splice(at, 0, entry);
    if (top.length > MAX_AGENTS) top.pop();
  }
  const listed = new Set(top.map(([name]) => name));
  return { agents: agentsOf(events, metadata, listed), agent_count: lanes.size };
}

/** The agents in order of first event (only those in `only` when given), each with what it was asked and what it spent. */
function agentsOf(events: readonly TraceEvent[], metadata: Record<string, unknown>, only?: ReadonlySet<string>): SummaryAgent[] {
  const lanes = new Map<string, { first: number; events: TraceEvent[] }>();
  events.forEach((e, i) => {
    if (only && !only.has(e.agent)) return;
    let lane = lanes.get(e.agent);
    if (!lane) lanes.set(e.agent, (lane = { first: i, events: [] }));
    else if (e.t < events[lane.first].t) lane.first = i;
    lane.events.push(e);
  });
  const agentsMeta = metadata.agents && typeof metadata.agents === 'object' ? (metadata.agents as Record<string, unknown>) : {};
  const ordered = [...lanes.entries()].sort((a, b) => events[a[1].first].t - events[b[1].first].t || a[1].first - b[1].first);
  const addressed = firstAddressed(events);
  return ordered.map(([name, lane]) => {
    const meta = (Object.prototype.hasOwnProperty.call(agentsMeta, name) && agentsMeta[name] && typeof agentsMeta[name] === 'object' ? agentsMeta[name] : {}) as Record<string, unknown>;
    const asked = addressed.asked.get(name)?.content ?? firstReceived(name, lane.events);
    const spawned = addressed.spawned.get(name)?.content;
    const kind = str(meta.subagent_type) ?? str(meta.agent_nickname) ?? str(meta.role);
    // A spawn's text is what the agent is for (Claude Code: the Agent call's `description`) when a prompt came apart from it.
    const description = spawned !== undefined && asked !== undefined && spawned !== asked ? spawned : undefined;
    const label = kind && description ? `${kind}: ${description}` : (kind ?? description);
    return {
      name,
      label: label === undefined ? null : oneLine(label, AGENT_TASK_CHARS),
      task: (asked ?? spawned) === undefined ? null : oneLine((asked ?? spawned)!, AGENT_TASK_CHARS),
      events: lane.events.length,
      tokens: byKind(lane.events),
    };
  });
}

/**
 * Per agent name, in one pass over the events: the first message or delegation addressed to it by
 * another (`asked`) and the first spawn of it (`spawned`), by time. O(events).
 */
function firstAddressed(all: readonly TraceEvent[]): { asked: Map<string, TraceEvent>; spawned: Map<string, TraceEvent> } {
  const asked = new Map<string, TraceEvent>();
  const spawned = new Map<string, TraceEvent>();
  for (const e of all) {
    if (typeof e.to !== 'string') continue;
    const type = canonicalType(e.type);
    const into = type === 'spawn' ? spawned : type === 'message' || type === 'delegate' ? asked : undefined;
    if (!into || notSpoken(e) || str(e.content) === undefined) continue;
    if (e.agent === e.to && e.from === e.to) continue;
    const best = into.get(e.to);
    if (!best || e.t < best.t) into.set(e.to, e);
  }
  return { asked, spawned };
}

/** The first message an agent's own lane received from another (when nothing was addressed to it). */
function firstReceived(name: string, own: readonly TraceEvent[]): string | undefined {
  let best: TraceEvent | undefined;
  for (const e of own) {
    if (canonicalType(e.type) !== 'message' || notSpoken(e) || str(e.content) === undefined || e.from === undefined || e.from === name) continue;
    if (!best || e.t < best.t) best = e;
  }
  return best?.content;
}
