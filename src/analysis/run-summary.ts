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
import { TOKEN_KINDS, addTokens, usageOf, type TokenKind } from '../trace/tokens';
import { timeUnitOf, type TimeUnit } from '../trace/units';
import type { Analysis, Finding, StopScope } from './types';
import { recordsFailure } from '../shared/recorded-failure';
import { kindAndTask } from '../shared/agent-words';
import { DURING_A_TOOL_CALL, type Unended } from '../shared/stop-words';
import { upperBound } from './sorted';

/** Tokens by kind, each model call counted once; `null` for a kind no call recorded (not a measured 0). */
export type SummaryTokens = Record<TokenKind, number | null>;

/** How the run ended: its last stop (by time) as the analysis found it. */
export interface SummaryEnd {
  /** Id of the stop event (or of the last event when the trace records no stop). */
  event: string;
  /** Its place among the trace's events (`loaded.trace.events`, from 0): ids can repeat. */
  index: number;
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
  /**
   * With no stop recorded: why the file says nothing of the end, when it is known: `cut off` (the
   * file ends inside a record: a crash, a copy cut short) or `in progress` (it is being written).
   */
  unended?: Unended;
  /** With no stop recorded and words quoted: the agent (lane) who said them, e.g. a sub-agent that spoke last while the main agent waited. */
  speaker?: string;
  /** With no stop recorded (and the file not cut off): true when the run's last action was a tool call that got no result (it ended during the call). */
  duringCall?: boolean;
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

/**
 * What the run cost in US dollars: as the trace records it when it does (its tracer's total, else its
 * events' own `cost`), else estimated from list prices.
 */
export interface SummaryCost {
  /** US dollars: recorded (`basis` 'trace total' or 'recorded calls') or estimated ('list prices': not a bill). */
  usd: number;
  /** True only for an estimate from list prices; a recorded cost is the trace's own figure. */
  estimate: boolean;
  /** Where `usd` comes from: the trace's `costs.usd`, the sum of its events' `cost`, or list prices. */
  basis: 'trace total' | 'recorded calls' | 'list prices';
  /** The models of the calls counted, in order of first use (none for a trace total). */
  models: string[];
  /** Model calls with tokens left out of `usd`: with no recorded cost ('recorded calls'), of an unknown model or one with no price ('list prices'); 0 for a trace total. */
  unpriced_calls: number;
}

/** The run summary (`otrace summary FILE --json` prints it as is). */
export interface RunSummary {
  /** What was asked: the recorded task, else the first user prompt, else the first message or delegation (one line, at most {@link TASK_CHARS} characters); `''` when none is found or the trace's `metadata.task_unknown` says it records none. */
  task: string;
  /**
   * The user's prompts after the first, when there are any: how many, and the last one's words (one
   * line, at most {@link TASK_CHARS} characters). A session the user went on with ("continue until
   * all are done") was asked more than its first prompt, often most of its work.
   */
  later_prompts?: { count: number; last: string };
  /** The run's last stop; null for a trace without events. */
  ended: SummaryEnd | null;
  /** The outcome the trace records (never ground-truth labels); null when it records none. */
  outcome: { status: 'success' | 'failure' | 'partial'; source: string } | null;
  /**
   * From the first event's start to the last event's end: seconds, or steps for a trace without a
   * clock; `from` the first event's start on that clock (a step clock's first step: a span of 9 steps
   * is the 10 records of steps 0 to 9, which a user counts as 10: the views say `steps 0–9`).
   */
  duration: { value: number; unit: TimeUnit; from: number };
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
  /**
   * When the file is one sub-agent's own record, opened alone (a Codex child rollout): who spawned
   * it, e.g. `thread 019f7000-…-00000000a016` (the trace's `metadata.parent_thread_id`): its turn
   * ends hand back to that agent, not to the user, and its parent's file holds the whole run. Absent otherwise.
   */
  spawned_by?: string;
  /** The analysis' problems (sound stops and plain turn ends left out), most severe first, at most {@link MAX_FINDINGS}. */
  findings: { kind: Finding['kind']; severity: Finding['severity']; message: string }[];
  /** How many problems the analysis found in all (`findings` lists at most {@link MAX_FINDINGS}). */
  finding_count: number;
  /**
   * Tool calls whose result records a failure ({@link recordsFailure}: an error status, `is_error`, a
   * non-zero exit code): a fact of the trace, no verdict (a failure the run recovered from counts
   * too). `first`: the first in the file, with its place among the events (ids can repeat), its tool and error (at
   * most {@link END_TEXT_CHARS} characters). Null when none.
   */
  failed_calls: { count: number; first: { event: string; index: number; tool: string; error: string } } | null;
}

/** Prices one model call in US dollars: null when the model is unknown to the price data. */
export type CallPricer = (model: string, usage: TokenUsage) => number | null;

export interface SummaryOptions {
  /** Pricing of one model call; without it the summary has only the cost the trace records. */
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

/** A row whose sender or role is the user (`user`, `human`). */
function fromUser(e: TraceEvent): boolean {
  return USER_SENDERS.has(String(e.from ?? '').toLowerCase()) || USER_SENDERS.has(String(e.role ?? '').toLowerCase());
}

/**
 * The run summary of a loaded trace and its analysis ({@link RunSummary}).
 * Never throws on odd content; an empty trace gives an empty summary.
 * @param tallies what earlier summaries of the same trace read of its first events (a followed
 *   trace's: {@link RunTallies}, which says when they can go on); new ones by default.
 * Cost: O(events not fed to `tallies` before), and O(events) for an estimated cost (`options.price`).
 */
export function runSummary(loaded: LoadedTrace, analysis: Analysis, options: SummaryOptions = {}, tallies: RunTallies = new RunTallies()): RunSummary {
  const events = loaded.trace.events;
  const metadata = (loaded.trace.metadata ?? {}) as Record<string, unknown>;
  tallies.feed(events, metadata);
  // the problems: sound stops and plain turn ends are no problem
  const problems = analysis.findings.filter((f) => !(f.kind === 'stop' && f.mode === 'ok'));
  const { totals } = tallies;
  return {
    ...endOf(loaded, analysis, () => tallies.prompt.text, tallies),
    ...laterPrompts(events, tallies.namedPrompts),
    duration: { value: round(totals.span), unit: timeUnitOf(loaded), from: round(totals.first) },
    tokens: nullsFor(recordedTokens(loaded.trace.costs, totals.tokens) ?? totals.tokens),
    event_tokens: totals.eventTokens > 0 ? totals.eventTokens : null,
    cost: tallies.costs.recorded(loaded) ?? (options.price ? estimateCost(events, metadata, options.price) : null),
    ...tallies.busiestAgents(events, metadata),
    finding_count: problems.length,
    findings: problems
      .map((f, i) => ({ f, i }))
      .sort((a, b) => SEVERITY_RANK[a.f.severity] - SEVERITY_RANK[b.f.severity] || a.i - b.i)
      .slice(0, MAX_FINDINGS)
      .map(({ f }) => ({ kind: f.kind, severity: f.severity, message: f.message })),
    // a copy: the tallies go on counting for the next summary
    failed_calls: tallies.failed && { count: tallies.failed.count, first: tallies.failed.first },
  };
}

/** {@link RunSummary.later_prompts} from the prompts a user or human sent by name ({@link RunTallies.namedPrompts}). */
function laterPrompts(events: readonly TraceEvent[], named: { count: number; last: number }): Pick<RunSummary, 'later_prompts'> {
  if (named.count < 2) return {};
  return { later_prompts: { count: named.count - 1, last: proseLine(events[named.last].content!, TASK_CHARS) } };
}

/**
 * What {@link runSummary} reads from every event, fed the events in order: the first prompt, what
 * each agent was asked, the lanes' tallies, the run's span and tokens, the failed calls, the
 * recorded costs and each agent's last words. One pass at 1M events costs 250-400 ms; a followed
 * trace's tallies go on from the events fed before (src/analysis/follow.ts `summary`): `feed`
 * takes the events from the first one not fed yet.
 *
 * The caller keeps the contract: the events fed before are the first ones of every later list, the
 * same objects, and the trace-level fields (`metadata`, `costs`) are the same (what the costs and
 * the models read); a whole read takes new tallies.
 */
export class RunTallies {
  readonly prompt = new PromptFinder();
  readonly addressed = new AddressedFinder();
  readonly lanes = new LaneTallies(MAX_AGENTS);
  readonly totals = new Totals();
  readonly costs = new RecordedCosts();
  /** Per agent, the last thing it said (by time, then index): the words of an end that records none. */
  readonly lastSaid = new Map<string, TraceEvent>();
  /** Per agent, the index of {@link lastSaid}'s event. */
  readonly lastSaidAt = new Map<string, number>();
  /** The indices of the user's prompts ({@link isUserPrompt}), ascending. */
  readonly userPrompts: number[] = [];
  /**
   * Of those, the ones a user or human sent by name (`from`, or the lane), not by chat role (AutoGen
   * gives every participant but the speaker the role `user`: a terminal's "There is no code..." is no
   * prompt of a person's): how many, and the index of the last (-1: none).
   */
  readonly namedPrompts = { count: 0, last: -1 };
  failed: RunSummary['failed_calls'] = null;
  /** Events fed so far (the first ones of the list). */
  fed = 0;
  /** The busiest lanes' full tallies past {@link MAX_AGENTS} lanes, kept while the same lanes are the busiest. */
  private listed: { names: string; tallies: LaneTallies; fed: number } | undefined;

  /** Feeds the events of `events` from the first one not fed yet. O(new events). */
  feed(events: readonly TraceEvent[], metadata: Record<string, unknown>): void {
    for (let i = this.fed; i < events.length; i++) {
      const e = events[i];
      const type = canonicalType(e.type);
      this.prompt.add(e, type);
      this.addressed.add(e, type);
      this.lanes.add(e, i, type, events);
      this.totals.add(e);
      this.costs.add(e, metadata);
      if (type === 'tool_result' && recordsFailure(e)) {
        if (this.failed) this.failed.count++;
        else this.failed = { count: 1, first: { event: e.id, index: i, tool: typeof e.tool === 'string' ? e.tool : 'tool', error: oneLine(failureText(e), END_TEXT_CHARS) } };
      }
      if (SAYS_WORDS.has(type) && saidBy(e)) {
        const out = this.lastSaid.get(e.agent);
        if (!out || e.t >= out.t) {
          this.lastSaid.set(e.agent, e);
          this.lastSaidAt.set(e.agent, i);
        }
      }
      if (isUserPrompt(e, type)) {
        this.userPrompts.push(i);
        if (USER_SENDERS.has(String(e.from ?? e.agent).toLowerCase())) {
          this.namedPrompts.count++;
          this.namedPrompts.last = i;
        }
      }
    }
    this.fed = events.length;
  }

  /**
   * The {@link MAX_AGENTS} agents with the most events (ties: the earlier first event), in order of
   * first event, and how many agents there are. O(agents · log MAX_AGENTS) from the tallies; past
   * MAX_AGENTS lanes, a second pass over the events tallies only the listed agents (over the new
   * events only while the same agents stay the busiest).
   */
  busiestAgents(events: readonly TraceEvent[], metadata: Record<string, unknown>): { agents: SummaryAgent[]; agent_count: number } {
    const all = this.lanes.all;
    if (this.lanes.detailed) return { agents: agentsOf(all, this.addressed, metadata, events), agent_count: all.size };
    const before = (a: LaneTally, b: LaneTally) => b.count - a.count || events[a.first].t - events[b.first].t || a.first - b.first;
    // the MAX_AGENTS busiest by one pass keeping a small sorted list (no sort of every agent)
    const top: [string, LaneTally][] = [];
    for (const entry of all) {
      if (top.length === MAX_AGENTS && before(entry[1], top[top.length - 1][1]) >= 0) continue;
      let at = top.length;
      while (at > 0 && before(entry[1], top[at - 1][1]) < 0) at--;
      top.splice(at, 0, entry);
      if (top.length > MAX_AGENTS) top.pop();
    }
    const names = top.map(([name]) => name);
    const key = JSON.stringify([...names].sort());
    if (this.listed?.names !== key) this.listed = { names: key, tallies: new LaneTallies(Infinity, new Set(names)), fed: 0 };
    const listed = this.listed;
    for (let i = listed.fed; i < events.length; i++) listed.tallies.add(events[i], i, canonicalType(events[i].type), events);
    listed.fed = events.length;
    return { agents: agentsOf(listed.tallies.all, this.addressed, metadata, events), agent_count: all.size };
  }
}

/** What a failed result says of its failure: its `error` text, else its content, else its exit code. */
function failureText(e: TraceEvent): string {
  const { error, exit_code: exitCode } = e as { error?: unknown; exit_code?: unknown };
  if (typeof error === 'string' && error.trim() !== '') return error;
  if (typeof e.content === 'string' && e.content.trim() !== '') {
    // a background task's outcome as the harness notifies it (Claude Code): its summary, not its XML
    const summary = e.content.includes('<task-notification>') ? /<summary>([\s\S]*?)<\/summary>/.exec(e.content)?.[1]?.trim() : undefined;
    return summary || e.content;
  }
  return typeof exitCode === 'number' && exitCode !== 0 ? `exit code ${exitCode}` : 'failed';
}

/**
 * The task, how the run ended and its recorded outcome: the part of {@link runSummary} a comparison
 * of runs reads (without the per-agent and token passes). Never throws; O(events) at worst.
 */
export function runEnd(loaded: LoadedTrace, analysis: Analysis): Pick<RunSummary, 'task' | 'ended' | 'outcome'> {
  return endOf(loaded, analysis, () => PromptFinder.of(loaded.trace.events).text);
}

/** {@link runEnd}, the first prompt asked of `prompt` when the trace records no task. */
function endOf(loaded: LoadedTrace, analysis: Analysis, prompt: () => string | undefined, tallies?: RunTallies): Pick<RunSummary, 'task' | 'ended' | 'outcome' | 'spawned_by'> {
  const events = loaded.trace.events;
  const metadata = (loaded.trace.metadata ?? {}) as Record<string, unknown>;
  return {
    // an importer that knows the trace records no prompt says so (`task_unknown`): no message stands in for it
    task: recordedTask(metadata) ?? recordedTask({ task: loaded.trace.task }) ?? (typeof metadata.task_unknown === 'string' ? undefined : prompt()) ?? '',
    ended: withFinalOutput(lastStop(events, analysis, tallies), metadata),
    // recorded outcomes only: one read from the last stop (an error) is what `ended` already says
    outcome: analysis.outcome.status === 'unknown' || analysis.outcome.source === 'given by the caller' || analysis.outcome.fromStop ? null : { status: analysis.outcome.status, source: analysis.outcome.source },
    ...(typeof metadata.parent_thread_id === 'string' && metadata.parent_thread_id ? { spawned_by: `thread ${metadata.parent_thread_id}` } : {}),
  };
}

/**
 * {@link oneLine} of an agent's or a user's prose (markdown, as models write it): its strong
 * emphasis marks (`**done**`) and heading marks (`## Plan`) left out, the words kept:
 * a one-line quote is plain text, where `**Epic complete.**` read as noise. Code and links stay.
 */
export function proseLine(text: string, max: number): string {
  // (`__x__` is left alone: in agents' prose it is mostly Python's `__init__`, not emphasis)
  return oneLine(text.replace(/\*\*(?=\S)([^]*?\S)\*\*/g, '$1').replace(/^[ \t]{0,3}#{1,6}[ \t]+/gm, ''), max);
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

/** The task a trace's metadata (or header: `{ task }`) records: `task` as text, or its `question`, `prompt`, `instruction` or `description` (Who&When, MAST, benchmarks). */
function recordedTask(metadata: Record<string, unknown>): string | undefined {
  const t = metadata.task;
  const text = str(t) ?? (t && typeof t === 'object' && !Array.isArray(t) ? ['question', 'prompt', 'instruction', 'task', 'description'].map((k) => str((t as Record<string, unknown>)[k])).find((v) => v !== undefined) : undefined);
  return text === undefined ? undefined : proseLine(text, TASK_CHARS);
}

/** Rows that are not a person or an agent speaking (harness commands, injected rows, placeholders). */
/** The mark of a final answer (GAIA, Magentic-One, AutoGen write `FINAL ANSWER: …`). */
const FINAL_ANSWER_MARK = /FINAL ANSWER\s*:/i;

/** A slash command that expanded into a prompt (Claude Code: `/review-pr 42`): the user's request to its lane's agent. */
function isCommandPrompt(e: TraceEvent): boolean {
  return e.kind === 'local_command' && (e as { command_prompt?: unknown }).command_prompt === true;
}

function notSpoken(e: TraceEvent): boolean {
  return e.kind !== undefined && NOT_AGENT_OUTPUT_KINDS.has(e.kind);
}

/** The canonical types of an agent's words: its messages, and what it returns to its caller (a sub-agent's final answer). */
const SAYS_WORDS = new Set(['message', 'return']);

/** A user's prompt: a message with words from `user` or `human` (by sender, role or lane). @param type the event's canonical type. */
function isUserPrompt(e: TraceEvent, type: string): boolean {
  return type === 'message' && str(e.content) !== undefined && !notSpoken(e) && (fromUser(e) || USER_SENDERS.has(e.agent.toLowerCase()));
}

/**
 * True when a user's prompt no earlier than `said` (by time) comes after `said` and before the event
 * at `end` (file order; walked back from `end` until `said`: every prompt before `end` when `said`
 * is not before it). @param saidAt `said`'s index; @param prompts the indices of the user's prompts
 * ({@link RunTallies.userPrompts}): only those are read (walking back a turn was 12 ms of each append
 * of a followed trace at 1M events, its last words 300k events before its end); without them, the events.
 */
function userPromptBetween(events: readonly TraceEvent[], said: TraceEvent, saidAt: number, end: number, prompts?: readonly number[]): boolean {
  const to = Math.min(end, events.length);
  const after = saidAt < to ? saidAt : -1;
  if (prompts) {
    for (let k = upperBound(prompts, after); k < prompts.length && prompts[k] < to; k++) if (events[prompts[k]].t >= said.t) return true;
    return false;
  }
  for (let i = to - 1; i > after; i--) {
    const e = events[i];
    if (e.t >= said.t && isUserPrompt(e, canonicalType(e.type))) return true;
  }
  return false;
}

/** A message or return (of a canonical type in {@link SAYS_WORDS}) its lane's agent said, with words: not one it received, not a harness row. */
function saidBy(e: TraceEvent): boolean {
  return !notSpoken(e) && str(e.content) !== undefined && (e.from === undefined || e.from === e.agent);
}

/**
 * The first prompt of the user (a message from `user` or `human`, by time); else the text of the
 * first message or delegation (an instruction handed to an agent: in a run no user prompted, what
 * the first agent was asked, not the reply that came after it): fed the events one by one.
 */
class PromptFinder {
  private best: TraceEvent | undefined;
  private firstMessage: TraceEvent | undefined;

  /** The finder fed every event of `events`. O(events). */
  static of(events: readonly TraceEvent[]): PromptFinder {
    const finder = new PromptFinder();
    for (const e of events) finder.add(e, canonicalType(e.type));
    return finder;
  }

  /** @param type the event's canonical type. */
  add(e: TraceEvent, type: string): void {
    if (type === 'delegate') {
      if (str(e.content) !== undefined && (!this.firstMessage || e.t < this.firstMessage.t)) this.firstMessage = e;
      return;
    }
    if (type !== 'message' || (notSpoken(e) && !isCommandPrompt(e)) || str(e.content) === undefined) return;
    if (!this.firstMessage || e.t < this.firstMessage.t) this.firstMessage = e;
    const user = fromUser(e);
    if (user && (!this.best || e.t < this.best.t)) this.best = e;
  }

  /** The prompt's text (one line, clipped), or undefined when no message was seen. */
  get text(): string | undefined {
    const e = this.best ?? this.firstMessage;
    return e ? proseLine(e.content!, TASK_CHARS) : undefined;
  }
}

/** The run's last stop (latest time, then latest index) and the first words of its final answer or last agent output. */
/**
 * The run's end with the answer the trace records for the whole run (`metadata.final_output`: a span
 * export's root output) as its words, when the end is the run's: a model call's words inside the run
 * ("route: researcher") are not what it answered ("Argentina").
 */
function withFinalOutput(end: SummaryEnd | null, metadata: Record<string, unknown>): SummaryEnd | null {
  const answer = str(metadata.final_output);
  if (!end || answer === undefined || end.scope !== 'run') return end;
  // the run's answer is no one agent's last words
  const { speaker: _speaker, ...rest } = end;
  return { ...rest, text: proseLine(answer, END_TEXT_CHARS) };
}

/**
 * @param lastSaid per agent, the last thing it said ({@link RunTallies.lastSaid}): read for the words
 * of an end that records none when it is not later than the end (else the events are scanned).
 */
function lastStop(events: readonly TraceEvent[], analysis: Analysis, tallies?: RunTallies): SummaryEnd | null {
  const lastSaid = tallies?.lastSaid;
  let last: Analysis['stops'][number] | undefined;
  // the trace's run ends at its own stops; a sub-agent's stop ends the sub-agent's run (said only when the trace's has none)
  const own = analysis.stops.filter((s) => s.sub_agent === undefined);
  for (const s of own.length ? own : analysis.stops) {
    const t = events[s.index]?.t ?? -Infinity;
    const lt = last ? (events[last.index]?.t ?? -Infinity) : -Infinity;
    if (!last || t > lt || (t === lt && s.index > last.index)) last = s;
  }
  if (!last) return null;
  const stop = events[last.index];
  let text = last.synthetic ? undefined : str(stop?.content);
  let speaker: string | undefined;
  // the user's prompt is no agent's words: a file holding only the prompt so far ended with none (it read "its last words: “<the prompt>”")
  if (text === undefined && stop && !USER_SENDERS.has(stop.agent.toLowerCase())) {
    // the agent's last words by the end's time (the latest by index among equal times): its last words of all when they are not later
    const said = lastSaid?.get(stop.agent);
    let out: TraceEvent | undefined = lastSaid && (!said || said.t <= stop.t) ? said : undefined;
    let outAt = out ? tallies!.lastSaidAt.get(stop.agent)! : -1;
    if (lastSaid === undefined || out !== said) {
      for (let i = 0; i < events.length; i++) {
        const e = events[i];
        if (e.agent !== stop.agent || e.t > stop.t || !SAYS_WORDS.has(canonicalType(e.type)) || !saidBy(e)) continue;
        if (!out || e.t >= out.t) {
          out = e;
          outAt = i;
        }
      }
    }
    // words of an earlier turn are not how this one ended: a user's prompt after them (a turn the user stopped before its answer)
    if (out && userPromptBetween(events, out, outAt, last.index, tallies?.userPrompts)) out = undefined;
    text = out?.content;
    if (out) speaker = out.agent;
  }
  // an answer marked in harness output ("…UserWarning… FINAL ANSWER: 1080000000"): the answer, not the noise before it
  const marked = text === undefined ? -1 : text.search(FINAL_ANSWER_MARK);
  if (marked > 0) text = text!.slice(marked);
  const unended = last.synthetic ? last.unended : undefined;
  // the no-stop verdict's evidence says so (stop-verdicts.ts howItEnded)
  const duringCall = last.synthetic && !unended && last.evidence.some((e) => e.includes(DURING_A_TOOL_CALL));
  return { event: last.event, index: last.index, scope: last.scope, reason: last.reason, text: text === undefined ? '' : proseLine(text, END_TEXT_CHARS), recorded: !last.synthetic, ...(unended ? { unended } : {}), ...(speaker !== undefined && text !== undefined ? { speaker } : {}), ...(duringCall ? { duringCall } : {}) };
}

/** The run's span, its events' own tokens and its model calls' tokens by kind: fed the events one by one. */
class Totals {
  private start = Infinity;
  private end = -Infinity;
  /** The sum of the events' own `tokens` (finite, positive ones). */
  eventTokens = 0;
  /** Tokens by kind of the model calls (the kinds some call recorded). */
  readonly tokens: Partial<Record<TokenKind, number>> = {};

  add(e: TraceEvent): void {
    this.start = Math.min(this.start, e.t);
    this.end = Math.max(this.end, e.t + (e.duration_s ?? 0));
    if (typeof e.tokens === 'number' && Number.isFinite(e.tokens) && e.tokens > 0) this.eventTokens += e.tokens;
    addTokens(this.tokens, e);
  }

  /** From the first event's start to the last event's end (the trace's clock unit); 0 without events. */
  get span(): number {
    return this.start === Infinity ? 0 : this.end - this.start;
  }

  /** The first event's start (the trace's clock unit); 0 without events. */
  get first(): number {
    return this.start === Infinity ? 0 : this.start;
  }
}

/** A trace's own totals by kind (`costs.input_tokens`…): the tracer's count over the whole run. */
const RECORDED_KINDS: readonly [string, TokenKind][] = [
  ['input_tokens', 'input'],
  ['output_tokens', 'output'],
  ['cache_read_tokens', 'cache_read'],
  ['cache_write_tokens', 'cache_write'],
  ['reasoning_tokens', 'reasoning'],
];

/**
 * The tokens by kind the trace records for the whole run (`costs.input_tokens`, `output_tokens`,
 * `cache_read_tokens`, `cache_write_tokens`, `reasoning_tokens`: a Copilot CLI session's shutdown
 * totals, whose per-call usage may cover one call of five), when they are by kind (input, output and
 * cache read all there) and hold at least what its model calls add up to (`calls`): else undefined,
 * and the calls' sums stand.
 */
function recordedTokens(costs: Record<string, unknown> | undefined, calls: Partial<Record<TokenKind, number>>): Partial<Record<TokenKind, number>> | undefined {
  if (!costs) return undefined;
  const out: Partial<Record<TokenKind, number>> = {};
  for (const [key, kind] of RECORDED_KINDS) {
    const v = costs[key];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) out[kind] = v;
  }
  // by kind only: a total whose input counts the cached tokens too (Codex's costs.input_tokens) has no cache read beside it
  if (out.input === undefined || out.output === undefined || out.cache_read === undefined) return undefined;
  // (reasoning is part of the output: the calls' figure stands when the total does not say it)
  if (out.reasoning === undefined && calls.reasoning !== undefined) out.reasoning = calls.reasoning;
  const sum = (t: Partial<Record<TokenKind, number>>) => TOKEN_KINDS.reduce((n, k) => n + (k === 'reasoning' ? 0 : (t[k] ?? 0)), 0);
  return sum(out) >= sum(calls) && sum(out) > 0 ? out : undefined;
}

/** Tokens by kind, `null` for kinds none recorded. */
function nullsFor(totals: Partial<Record<TokenKind, number>>): SummaryTokens {
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

/** A model call with tokens (the calls a cost covers). */
function hasTokens(e: TraceEvent): boolean {
  const u = usageOf(e);
  return !!u && TOKEN_KINDS.some((k) => typeof (u as Record<string, unknown>)[k] === 'number');
}

/**
 * The cost the trace records, fed the events one by one: its `costs.usd` (the tracer's total), else
 * the sum of its events' `cost` (with the model calls that have tokens but no recorded cost counted
 * apart); null when it records none. A zero where tokens were spent is no record: trackers write 0
 * for a model they cannot price (Langfuse's `totalCost`), and an estimate is then worth more than a false $0.
 */
class RecordedCosts {
  private usd = 0;
  private counted = 0;
  private without = 0;
  /** Whether a model call with tokens was fed. */
  private anyTokens = false;
  private readonly models: string[] = [];

  add(e: TraceEvent, metadata: Record<string, unknown>): void {
    const tokens = hasTokens(e);
    if (tokens) this.anyTokens = true;
    if (typeof e.cost !== 'number' || !Number.isFinite(e.cost) || (e.cost === 0 && tokens)) {
      if (tokens) this.without++;
      return;
    }
    this.usd += e.cost;
    this.counted++;
    const model = modelOf(e, metadata);
    if (model !== undefined && !this.models.includes(model)) this.models.push(model);
  }

  /** The recorded cost of the events fed, or the trace's total. */
  recorded(loaded: LoadedTrace): SummaryCost | null {
    const total = loaded.trace.costs?.usd;
    if (typeof total === 'number' && Number.isFinite(total) && (total > 0 || !this.anyTokens)) return { usd: total, estimate: false, basis: 'trace total', models: [], unpriced_calls: 0 };
    return this.counted === 0 ? null : { usd: Math.round(this.usd * 1e6) / 1e6, estimate: false, basis: 'recorded calls', models: [...this.models], unpriced_calls: this.without };
  }
}

/** Sums the price of every model call whose model is known to `price`; null when none is. */
function estimateCost(events: readonly TraceEvent[], metadata: Record<string, unknown>, price: CallPricer): SummaryCost | null {
  let usd = 0;
  let priced = 0;
  let unpriced = 0;
  const models: string[] = [];
  for (const e of events) {
    if (!hasTokens(e)) continue;
    const model = modelOf(e, metadata);
    const p = model === undefined ? null : price(model, usageOf(e)!);
    if (p === null || !Number.isFinite(p)) {
      unpriced++;
      continue;
    }
    usd += p;
    priced++;
    if (!models.includes(model!)) models.push(model!);
  }
  return priced === 0 ? null : { usd: Math.round(usd * 1e6) / 1e6, estimate: true, basis: 'list prices', models, unpriced_calls: unpriced };
}

/**
 * The agents (lanes) of a run in order of their first event, each with its kind, what it was asked
 * and what it spent, as {@link RunSummary.agents} lists them (run comparison pairs agents by them).
 * Cost: O(events).
 */
export function runAgents(loaded: LoadedTrace): SummaryAgent[] {
  const events = loaded.trace.events;
  const lanes = new LaneTallies(Infinity);
  const addressed = new AddressedFinder();
  events.forEach((e, i) => {
    const type = canonicalType(e.type);
    lanes.add(e, i, type, events);
    addressed.add(e, type);
  });
  return agentsOf(lanes.all, addressed, (loaded.trace.metadata ?? {}) as Record<string, unknown>, events);
}

/** One lane as the events were fed: its first event (by time, then index), its count, and (while tallied in full) its tokens and the first message it received. */
interface LaneTally {
  first: number;
  count: number;
  tokens: Partial<Record<TokenKind, number>>;
  /** The first message its lane received from another (by time): what it was asked when nothing was addressed to it. */
  received?: TraceEvent;
}

/**
 * The lanes of a run, fed the events one by one. Each lane is tallied in full (tokens, first
 * message received) while there are at most `detailUpTo` lanes; past that only counted (a trace of
 * 1M agents keeps 1M small tallies, not 1M token tables), and {@link RunTallies.busiestAgents} tallies the
 * listed ones in a second pass.
 */
class LaneTallies {
  private readonly lanes = new Map<string, LaneTally>();
  /** Only these lanes (all when undefined). */
  constructor(
    private readonly detailUpTo: number,
    private readonly only?: ReadonlySet<string>,
  ) {}

  /** True while every lane is tallied in full. */
  get detailed(): boolean {
    return this.lanes.size <= this.detailUpTo;
  }

  get all(): ReadonlyMap<string, LaneTally> {
    return this.lanes;
  }

  /** @param type the event's canonical type; @param events the list `e` is item `i` of. */
  add(e: TraceEvent, i: number, type: string, events: readonly TraceEvent[]): void {
    if (this.only && !this.only.has(e.agent)) return;
    let lane = this.lanes.get(e.agent);
    if (!lane) this.lanes.set(e.agent, (lane = { first: i, count: 0, tokens: {} }));
    else if (e.t < events[lane.first].t) lane.first = i;
    lane.count++;
    if (!this.detailed) return;
    addTokens(lane.tokens, e);
    if (type !== 'message' || notSpoken(e) || str(e.content) === undefined || e.from === undefined || e.from === e.agent) return;
    if (!lane.received || e.t < lane.received.t) lane.received = e;
  }
}

/** The tallied agents in order of first event, each with what it was asked and what it spent. */
function agentsOf(lanes: ReadonlyMap<string, LaneTally>, addressed: AddressedFinder, metadata: Record<string, unknown>, events: readonly TraceEvent[]): SummaryAgent[] {
  const agentsMeta = metadata.agents && typeof metadata.agents === 'object' ? (metadata.agents as Record<string, unknown>) : {};
  const ordered = [...lanes.entries()].sort((a, b) => events[a[1].first].t - events[b[1].first].t || a[1].first - b[1].first);
  return ordered.map(([name, lane]) => {
    const meta = (Object.prototype.hasOwnProperty.call(agentsMeta, name) && agentsMeta[name] && typeof agentsMeta[name] === 'object' ? agentsMeta[name] : {}) as Record<string, unknown>;
    const asked = addressed.asked.get(name)?.content ?? lane.received?.content;
    const spawned = addressed.spawned.get(name)?.content;
    const kind = str(meta.subagent_type) ?? str(meta.agent_nickname) ?? str(meta.role);
    // A spawn's text is what the agent is for (Claude Code: the Agent call's `description`) when a prompt came apart from it.
    const description = spawned !== undefined && asked !== undefined && spawned !== asked ? spawned : undefined;
    // without a kind, a spawn's text is no name: an otrace spawn's may be its whole instructions (the lane's name says who it is)
    const label = kind && description ? kindAndTask(kind, description) : kind;
    return {
      name,
      label: label === undefined ? null : oneLine(label, AGENT_TASK_CHARS),
      task: (asked ?? spawned) === undefined ? null : proseLine((asked ?? spawned)!, AGENT_TASK_CHARS),
      events: lane.count,
      tokens: nullsFor(lane.tokens),
    };
  });
}

/**
 * Per agent name, fed the events one by one: the first message or delegation addressed to it by
 * another (`asked`) and the first spawn of it (`spawned`), by time.
 */
class AddressedFinder {
  readonly asked = new Map<string, TraceEvent>();
  readonly spawned = new Map<string, TraceEvent>();

  /** @param type the event's canonical type. */
  add(e: TraceEvent, type: string): void {
    if (isCommandPrompt(e)) {
      const best = this.asked.get(e.agent);
      if (str(e.content) !== undefined && (!best || e.t < best.t)) this.asked.set(e.agent, e);
      return;
    }
    if (typeof e.to !== 'string') return;
    const into = type === 'spawn' ? this.spawned : type === 'message' || type === 'delegate' ? this.asked : undefined;
    if (!into || notSpoken(e) || str(e.content) === undefined) return;
    if (e.agent === e.to && e.from === e.to) return;
    const best = into.get(e.to);
    if (!best || e.t < best.t) into.set(e.to, e);
  }
}
