/**
 * The answers of the engine's queries about one snapshot (src/engine/queries.ts computes them in
 * the worker; the host formats them). Types and one constant only: the extension host imports it.
 */
import type { TokenUsage } from '../trace/schema';
import type { Position, Range } from '../trace/model';
import type { PromptTarget } from './source-prompt';

/** Characters of content a hover shows. */
export const PREVIEW_CHARS = 400;

/** Where an event is and what it is, in a few fields (navigation, pick lists, content titles). */
export interface EventPlace {
  index: number;
  id: string;
  type: string;
  agent: string;
  /** The origin's `file` (`''`: the trace file; else a sub-agent file, relative to the trace's folder or absolute). */
  file: string;
  range: Range;
}

/** A finding an event takes part in, as a hover lists it. */
export interface EventFinding {
  /** Index into the session's findings (for Explain). */
  index: number;
  /** e.g. `loop ×3 (event 2 of 6)`, `stop, premature`, `decisive error`, `best stop`. */
  label: string;
  message: string;
}

/** What a hover shows of an event. Strings are trace content: the host escapes them. */
export interface EventInfo extends EventPlace {
  tool?: string;
  to?: string;
  /** The lane label of the agent `to` names, when its lane has one (its task in a few words: `Explore existing codebase`). */
  toLabel?: string;
  /** Seconds since the trace's start; a step number when `countsSteps`. */
  t: number;
  /** True when the trace records no clock and `t` counts steps (a benchmark log). */
  countsSteps?: boolean;
  /** The event's own tokens (for a model call, its output). */
  tokens?: number;
  /** Model calls: the call's tokens by kind (input, output, cache read, cache write, reasoning). */
  usage?: TokenUsage;
  cost?: number;
  /** Seconds (steps when `countsSteps`). */
  duration_s?: number;
  /** Stop events: the reason (`unknown` when none). */
  reason?: string;
  /** Stop events: what the trace says the stop ended (`turn`, `phase`, `run`), when it says. */
  scope?: string;
  /** A tool result whose failure the trace records (analysis/recorded-failure.ts): how (`exit code 2`, `marked as an error`, `error: …`, untrusted text). */
  failed?: string;
  /** The first {@link PREVIEW_CHARS} characters of the content (or content_ref). */
  contentHead?: string;
  /** Length of the whole content in characters (0 without content). */
  contentLength: number;
  /** The credit estimate of the event: formatted value (`+0.42`, `influence 0.42 (…)`) and where it comes from. */
  credit?: { text: string; basis: string };
  findings: EventFinding[];
  /** True when Go to Source Prompt finds a prompt for it. */
  hasSourcePrompt: boolean;
}

/** A span of 0-based lines, both ends included (the visible lines of an editor, with a margin). */
export interface LineSpan {
  start: number;
  end: number;
}

/** A CodeLens of a trace file: a stop or loop finding (Explain) or a spawn (the spawned agent's lane). */
export type LensItem =
  | { at: Position; finding: { index: number; kind: string; mode?: string; inline: string; message: string } }
  /** A spawn's agent: its lane's label in the graph when it has one, its event count, and its earliest and latest events by time (indices; the graph frames them when it folds the agent's lane into a group). */
  | { at: Position; lane: { agent: string; label?: string; events: number; first?: number; last?: number } };

/** One Outline symbol: an event of a lane. */
export interface OutlineEvent {
  id: string;
  /** The event's readable label (src/engine/record-labels.ts), e.g. `user: Work on bead…`, `Bash: npm test ✗ exit 2`, `stop: task_complete`. */
  detail: string;
  /** Canonical event type (for the symbol's icon). */
  kind: string;
  t: number;
  /** `t` with its unit, for the Outline: `t=9 s`, or `step 9` when the trace counts steps. */
  when: string;
  range: Range;
}

/** One lane of the Outline: its events in file order and the range they span. */
export interface OutlineLane {
  /** The agent; for a group of folded agents, the group's name (`worker_3#* (folded)`). */
  agent: string;
  /** A group of agents folded into one symbol (more than the graph shows as lanes): how many. */
  agents?: number;
  range: Range;
  /** The range of its first event in the file. */
  first: Range;
  /** Its events in the file; `events` lists the first of them when the Outline lists at most so many events. */
  count: number;
  events: OutlineEvent[];
}

/** Where Go to Source Prompt goes for an event, and the line of the event (1-based) for messages. */
export interface PromptAt {
  target?: PromptTarget;
  /** For an `event` target: that event's place. */
  place?: EventPlace;
  /** The event's own line, 1-based. */
  line: number;
}

/** One event using a prompt file: its index and the prompt line it points at (1-based). */
export interface PromptUser {
  index: number;
  line: number;
}
