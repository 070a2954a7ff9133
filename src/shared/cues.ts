/**
 * Visible cues for the event subtypes and states of docs/model.md (local command, meta row,
 * placeholder, interruption, API error, compaction, missing-parent placeholder, a step the trace
 * records as failed, denied call, call without a result, call in progress, open span, clock skew):
 * what each is called in plain words, the glyph its node carries, and whether it is drawn hollow (a
 * row that is no agent output) or with an error-coloured ring (a failure).
 * The graph's nodes, legend, hover and details all read this one table. Shared by the engine and the webview.
 */
import { recordsFailure } from './recorded-failure';

/** How one cue is shown. */
export interface EventCue {
  /** Short name, e.g. `denied call`. */
  label: string;
  /** One plain sentence for hovers and the legend. */
  description: string;
  /** A glyph drawn on the node (one character). */
  glyph: string;
  /** Drawn hollow with a dashed outline: a row that is not an agent's output. */
  hollow: boolean;
  /** Drawn with a ring in the theme's error colour: the step failed. */
  alert?: boolean;
}

/** Every cue, in legend order. Keys are the model's `kind` values and call/span states. */
export const EVENT_CUES: Readonly<Record<string, EventCue>> = {
  local_command: { label: 'local command', description: 'a command the user ran in the harness (e.g. /compact) and its output; not a prompt to the model', glyph: '/', hollow: true },
  meta: { label: 'meta row', description: 'a row the harness injected (caveats, instructions); not a message of the user or the agent', glyph: 'i', hollow: true },
  placeholder: { label: 'placeholder', description: 'a synthetic row that is not model output (e.g. "No response requested.")', glyph: '∅', hollow: true },
  missing_parent: { label: 'missing parent', description: 'stands for a parent span the file does not hold; the spans that name it hang under it', glyph: '?', hollow: true },
  interruption: { label: 'interruption', description: 'the user interrupted the run; not an agent failure', glyph: '‖', hollow: false },
  api_error: { label: 'API error', description: 'a synthetic API-error row (e.g. overloaded, prompt too long): the API stopped the run, not the agent', glyph: '!', hollow: false },
  compaction: { label: 'compaction', description: 'the context was compacted; the summary is the content', glyph: '≡', hollow: false },
  failed: { label: 'failed', description: 'the trace records that this step failed (an error status, is_error, or a non-zero exit code)', glyph: '×', hollow: false, alert: true },
  denied: { label: 'denied call', description: 'the user refused this tool call; not an agent failure', glyph: '⊘', hollow: false },
  no_result: { label: 'no result', description: 'this tool call has no result in the file', glyph: '?', hollow: false },
  in_progress: { label: 'in progress', description: 'this tool call may still be running: the file ends in a cut-off line (still being written, or its writer stopped)', glyph: '…', hollow: false },
  open: { label: 'open span', description: 'the span never ended in the file: its duration is unknown', glyph: '→', hollow: false },
  clock_skew: { label: 'clock skew', description: 'recorded as starting before the event that caused it; placed at its cause', glyph: '~', hollow: false },
};

/** The fields of a trace event (trace/schema.ts's TraceEvent) that decide its cues. */
export interface CuedEvent {
  kind?: string;
  call_status?: string;
  open?: boolean;
  clock_skew_s?: number;
}

/**
 * The cues of an event, in {@link EVENT_CUES} order: its `kind`, whether it records a failure
 * (recorded-failure.ts: the one definition the run summary's failed calls use), its call status,
 * open, clock skew.
 */
export function eventCues(e: CuedEvent): string[] {
  const out: string[] = [];
  if (e.kind !== undefined && e.kind in EVENT_CUES) out.push(e.kind);
  if (recordsFailure(e)) out.push('failed');
  if (e.call_status !== undefined && e.call_status in EVENT_CUES) out.push(e.call_status);
  if (e.open === true) out.push('open');
  if (typeof e.clock_skew_s === 'number' && e.clock_skew_s !== 0) out.push('clock_skew');
  // most events have no cue or one: nothing to order (a 1M-event graph asks for every event's)
  return out.length < 2 ? out : out.sort((a, b) => CUE_ORDER.indexOf(a) - CUE_ORDER.indexOf(b));
}

/** The cues' names in legend order. */
const CUE_ORDER = Object.keys(EVENT_CUES);

/** The cue in plain words, for hovers and details: `denied call: the user refused ...`. */
export function describeCue(cue: string): string {
  const c = EVENT_CUES[cue];
  return c ? `${c.label}: ${c.description}` : cue;
}
