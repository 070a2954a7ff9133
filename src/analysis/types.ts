/**
 * What the analysis returns (`otrace analyze FILE --json` prints an {@link Analysis}).
 * Units: times in seconds (steps when `time_unit` is `steps`), tokens as counted by the trace (an
 * event's own: a model call's output), costs in the trace's currency (USD).
 * Event references are event ids; `record` is the 0-based index of the event in its source's own list.
 */
import type { Unended } from '../shared/stop-words';
import type { StopReason, Topology } from '../trace/schema';

/** Amount of work: events, tokens and seconds. */
export interface Spent {
  events: number;
  tokens: number;
  seconds: number;
}

/** The shape of a loop: events per repetition, how many repetitions, the agents in it. */
export interface LoopShape {
  period: number;
  repetitions: number;
  agents: string[];
}

/**
 * One thing the analysis found, in the one shape that the CLI, the Problems panel, decorations,
 * hovers, CodeLens and the graph all show. Sound stops are findings too (`mode: 'ok'`, severity
 * info): "when and why did it stop" is asked of every run; consumers that list only problems skip them.
 */
export interface Finding {
  kind: 'stop' | 'loop' | 'blame' | 'best_stop' | 'verification';
  severity: 'error' | 'warning' | 'info';
  /** Indices into `loaded.trace.events` (file order) of the events concerned; the first is the main one. */
  events: number[];
  /** The ids of those events, index for index (ids may repeat: never look events up by them). */
  ids: string[];
  /** Short text for an inline mark (at most about 40 characters), e.g. `■ task complete · premature`, `■ turn ended (handed back)`, `loop ×3`. */
  inline: string;
  /** The whole finding in plain words, with its evidence. */
  message: string;
  /** Stop findings: the failure mode at this stop, `ok` when none was found (not: the task was done; see `sound`). */
  mode?: StopFinding['finding'];
  /** Stop findings: what the stop ends (`run`, `turn`, `phase`). */
  scope?: StopScope;
  /** Stop findings: true only when the trace records that the task succeeded (a ✓ may be shown). */
  sound?: boolean;
  /** Stop and verification findings: how strong the evidence is (low: shown as info). */
  confidence?: Confidence;
  /** Loop findings: the loop's shape. */
  loop?: LoopShape;
  /**
   * Tokens the finding says were spent for nothing, as its message states them: a loop's repeats
   * beyond the first round, a stop's work after the task was done (or inside the loop it ended in);
   * absent when none were recorded.
   */
  tokens?: number;
}

/**
 * What a stop ends: `run` (the trace's final stop, or its end without one; a spawned sub-agent's last
 * stop ends its lane's run), `turn` (a hand-back to a user who may go on: Claude Code and Codex turn
 * ends, chats) or `phase` (a stage inside a run: ChatDev's phases, a stop signal the run went on after).
 * Only run stops get verdicts about the task (premature, delayed, no stop, sound).
 */
export type StopScope = 'run' | 'turn' | 'phase';

/** How strong a finding's evidence is: `low` findings are shown as info, never as a warning. */
export type Confidence = 'high' | 'medium' | 'low';

/** The survey's stop decision (O5) at one stop: what it ends, its reason and failure mode. */
export interface StopFinding {
  /** Id of the stop event, or of the last event when the trace has no stop event. */
  event: string;
  /** Index of that event in `loaded.trace.events`. */
  index: number;
  /** True when the trace has no stop event here and `event` is the run's last event. */
  synthetic: boolean;
  /**
   * A synthetic stop only: why the file says nothing of the run's end, when that is known: `cut off`
   * (it ends inside a record) or `in progress` (it is still being written). No verdict is given then.
   */
  unended?: Unended;
  reason: StopReason;
  /** `recorded` when a stop event gave it, `inferred` from the trace's last events otherwise. */
  reason_source: 'recorded' | 'inferred';
  /** What the stop ends: recorded by the importer, else inferred (see {@link StopScope}). */
  scope: StopScope;
  /**
   * The failure mode found at this stop, `ok` when none was found. `ok` is not "the task was done":
   * that is `sound`. Turn and phase stops are always `ok` (they get no verdict about the task).
   */
  finding: 'ok' | 'premature' | 'delayed' | 'no_stop';
  /** Every failure mode found at this stop (`finding` is the first of no_stop, then the more confident of premature and delayed). */
  modes: ('premature' | 'delayed' | 'no_stop')[];
  /**
   * True only for a run stop with no failure found when the trace records that the task succeeded:
   * an outcome or reward of success (or one the user stated), or a check that passed after the last
   * change. Without such a record the verdict is unknown (false).
   */
  sound: boolean;
  /**
   * True for the trace's own run stop with no failure found when the trace records that the run
   * failed (an outcome or reward of failure): the run stopped on a task that was not done. Absent otherwise.
   */
  run_failed?: true;
  /** How strong the evidence of `finding` is (failure modes only): `low` is shown as info. */
  confidence?: Confidence;
  /** Why the finding was given, one short clause per piece of evidence. */
  evidence: string[];
  /** Indices in `loaded.trace.events` of the events the evidence names (the stop excluded), in time order. */
  evidence_indices?: number[];
  /** Their ids, index for index. */
  evidence_events?: string[];
  /** Work after the point where the task was done (delayed), or inside the final loop (no_stop); zeros otherwise. */
  wasted: Spent;
  /** The event after which the task was done (delayed stops), when found. */
  done_at?: string;
  /** Index of that event in `loaded.trace.events`. */
  done_index?: number;
  /** What marked the done point. */
  done_basis?: 'completion_claim' | 'reward' | 'final_answer' | 'impasse';
  /** Index in `loaded.trace.events` of the last change no test or check followed (premature), when that is the evidence. */
  unverified_index?: number;
  /** Spawned agents that had not returned at the stop (premature). */
  open_spawns?: string[];
  /** The spawned sub-agent whose own run this stop ends (absent: a stop of the trace's run). */
  sub_agent?: string;
  message: string;
}

/**
 * A verification failure (MAST 3.2/3.3), a finding of its own and not a stop verdict: a reviewer's
 * issues that no later review cleared, a failing check that nothing after it fixed, or a claim of
 * completion on a run whose outcome is a failure.
 */
export interface VerificationFinding {
  kind: 'uncleared_review' | 'failing_check_ignored' | 'unverified_claim';
  /** Id of the main event (the last critique, the failing result, the claim). */
  event: string;
  /** Index of that event in `loaded.trace.events`. */
  index: number;
  confidence: Confidence;
  /** Indices in `loaded.trace.events` of the other events the evidence names. */
  evidence_indices: number[];
  /** Their ids, index for index. */
  evidence_events: string[];
  message: string;
}

/** Hindsight best stop point: an agent output that states the answer the run ended with (or the reward's peak). */
export interface BestStop {
  event: string;
  /** Index of the event in `loaded.trace.events`. */
  index: number;
  basis: 'reward' | 'final_answer';
  /** Work done after it until the end of the trace. */
  after: Spent;
}

/** One point of the V_stop estimate along the timeline. */
export interface VStopPoint {
  event: string;
  t: number;
  /** Estimate of E[R | continue, s_t]. */
  continue: number;
  /** Estimate of E[R | stop, s_t]. */
  stop: number;
  /** V_stop(s_t) = continue - stop; > 0 means continuing paid off. */
  value: number;
}

/** V_stop(s_t) = E[R | continue, s_t] - E[R | stop, s_t] (the survey's value of stopping). */
export interface VStop {
  available: boolean;
  /** Reward channel used, when available. */
  channel?: string;
  points: VStopPoint[];
  note: string;
}

export type LoopKind = 'repeated_tool_call' | 'ping_pong' | 'repeated_sequence';

/** Repeated work: the same tool call again, delegation ping-pong, a repeated sequence of events, or an agent restating the same step (near-duplicate). */
export interface Loop {
  kind: LoopKind;
  /** Only on a repeated_sequence of near-duplicate steps (MAST 1.3): matched by content-word resemblance, not identical fingerprints. */
  match?: 'similar';
  /**
   * Only with `match: 'similar'`: the evidence behind "in mostly the same words", the lowest
   * content-word resemblance |A ∩ B| / |A ∪ B| (Broder 1997) that joined a step to the loop, 0..1,
   * two decimals rounded down (at least the loop finder's threshold, 0.5 by default).
   */
  resemblance?: number;
  /** Member events in time order (all repetitions, the first one included). */
  events: string[];
  /** Their indices in `loaded.trace.events`, same order. */
  indices: number[];
  /** Events per repetition. */
  period: number;
  /** How many times the unit occurs (>= 2). */
  repetitions: number;
  /** Tokens spent by the repetitions after the first. */
  tokens: number;
  /** Seconds spent by the repetitions after the first. */
  seconds: number;
  /** True when the trace ended inside the loop (nothing new happened after it). */
  unresolved: boolean;
  /** Agents involved. */
  agents: string[];
  message: string;
}

/** The outcome signal the trace carries (never its ground-truth labels). */
export interface Outcome {
  status: 'success' | 'failure' | 'partial' | 'unknown';
  /** R used for credit: +1 success, -1 failure, the reward in between; null when unknown. */
  value: number | null;
  /** Where it came from, e.g. `metrics.task_success`, `rewards.team`, `reward event r9`. */
  source: string;
  /** True when no outcome is recorded and it is read from the run's last stop (an error stop: failure). */
  fromStop?: true;
  /** True for a failure no agent output caused (an API error stopped the run): nothing is blamed, and credit is not signed by it. */
  notAgentFailure?: true;
}

/** Message-level credit: signed (credit on success, blame on failure). */
export interface Credit {
  /** Event id -> value (the producer's `credit` when given, else the estimate). */
  events: Record<string, number>;
  /** Value per event, index for index with `loaded.trace.events` (ids may repeat). */
  by_index: number[];
  /** Agent -> sum of its events' values. */
  agents: Record<string, number>;
  /** Source record (step) index -> sum of its events' values. */
  steps: Record<string, number>;
  /** Ids whose value is the producer's, shown as given. */
  given: string[];
  /** False when the trace has no outcome signal: values are then unsigned influence shares. */
  signed: boolean;
  method: string;
}

/** The decisive error of a failed trace. */
export interface Blame {
  agent: string;
  event: string;
  /** Index of the event in `loaded.trace.events`. */
  index: number;
  /** 0-based index of the event in its source's own list. */
  record: number;
  /** What pointed at it. */
  basis: 'contrary_input' | 'evidence' | 'error';
  message: string;
  /** Basis `evidence` only: the step's probability of being the decisive error (blame-model.ts), 0..1. */
  p?: number;
  /** Basis `evidence` only: `agent`'s share of the blame (the sum of its steps' probabilities), 0..1; another agent's can be larger. */
  agentShare?: number;
}

export interface AgentCost {
  events: number;
  tokens: number;
  cost: number;
  seconds: number;
}

/** Orchestration metrics (the survey's parallelism, spawn structure, protocol overhead, costs). */
export interface Metrics {
  events: number;
  agents: number;
  /**
   * Σ over lanes of busy time / wall time (`lane_time / wall_time`; 1 = sequential); without a clock
   * (`work_basis` events) total work / critical path in events.
   */
  parallelism: number;
  /** Σ over lanes of each lane's busy time (the union of its intervals; waits on child spans left out), in `work_basis` units; absent without a clock. */
  lane_time?: number;
  /** Time anything ran (the union of all busy intervals), in `work_basis` units; absent without a clock. */
  wall_time?: number;
  /** Total work (seconds, steps on a step clock, or events when the trace has no durations). */
  total_work: number;
  /** Longest dependent chain of work, same unit as total_work. */
  critical_path: number;
  /** Event ids on the critical path. */
  critical_path_events: string[];
  work_basis: 'seconds' | 'steps' | 'events';
  spawns: number;
  /** Most spawns by one agent. */
  max_fan_out: number;
  /** Deepest chain of spawns (root agent = 0). */
  spawn_depth: number;
  /** Tokens in messages between agents / all tokens (chars when the trace has no tokens). */
  protocol_overhead: number | null;
  overhead_basis: 'tokens' | 'chars';
  per_agent: Record<string, AgentCost>;
  tool_calls: number;
  messages: number;
  /** Causal links the index found (explicit and derived). */
  links: { explicit: number; derived: number; dropped: number };
}

export interface TopologyGuess {
  /** The survey's topology that fits best. */
  guess: Topology;
  /** The topology the trace declares, if any. */
  declared?: Topology;
  /** Score per form (0..1), for explanation. */
  scores: Record<string, number>;
  evidence: string[];
}

/** Everything `analyzeTrace` finds. */
export interface Analysis {
  /**
   * What the trace's times count: `seconds`, or `steps` when it records no clock (Who&When, MAST
   * AG2): then every time, duration and `seconds` figure of this analysis is in steps.
   */
  time_unit: 'seconds' | 'steps';
  outcome: Outcome;
  stops: StopFinding[];
  /** Verification failures (a reviewer's issues never cleared, a failing check ignored, a claim on a failed run). */
  verification: VerificationFinding[];
  best_stop: BestStop | null;
  v_stop: VStop;
  loops: Loop[];
  credit: Credit;
  blame: Blame | null;
  metrics: Metrics;
  topology: TopologyGuess;
  findings: Finding[];
  /**
   * Files holding several traces only: each trace's own analysis (event indices are the file's),
   * in order of first appearance. The lists above (stops, loops, findings, credit) are then every
   * trace's; outcome, best stop, V_stop, blame, metrics and topology are the first trace's.
   */
  traces?: TraceAnalysis[];
}

/** The analysis of one trace of a file that holds several: its `trace_id` and event count. */
export interface TraceAnalysis extends Omit<Analysis, 'traces'> {
  trace_id: string;
  /** Events of this trace. */
  events: number;
}

/** Stop reasons that report the task done. */
export const COMPLETION_REASONS: ReadonlySet<string> = new Set(['task_complete', 'quality_met']);

/**
 * True when a stop is sound (a ✓ may be shown): a run stop with no failure found where the trace
 * records that the task succeeded (`sound`, see {@link StopFinding}). A turn or phase end, or a run
 * stop without a recorded success, is never sound: its verdict is unknown.
 */
export function isSoundStop(stop: Pick<StopFinding, 'finding' | 'sound'>): boolean {
  return stop.finding === 'ok' && stop.sound === true;
}
