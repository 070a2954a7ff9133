/**
 * Labels a trace file records itself: the ground truth of the labelled benchmarks, which their
 * importers keep in `trace.metadata.ground_truth` and the analysis never reads. `otrace labels
 * agreement` sets otrace's verdicts against them as it does against a sidecar's labels, and
 * `npm run eval` scores the same verdicts (scripts/eval-stops.ts).
 * - Who&When (Zhang et al., ICML 2025): `mistake_step` is the decisive error at event `h<step>`
 *   (`decisive_error`, judged as a sidecar's); `mistake_agent` the agent who made it
 *   (`decisive_agent`: otrace agrees when its blamed event is that agent's).
 * - MAST (Cemri et al. 2025, arXiv 2503.13657): a failure mode labelled 0 or 1 for the whole trace,
 *   for the modes otrace gives a verdict on ({@link MAST_VERDICTS}); otrace agrees when its verdict
 *   is present exactly when the label is 1 (a 0 is a label too).
 * Pure.
 */
import type { Analysis } from '../types';
import type { Judgement } from './agreement';
import { judgeDecisiveError } from './agreement';
import type { LoadedTrace } from '../../trace/model';
import { formatAt, timeUnitOf } from '../../trace/units';

/** A MAST failure mode otrace gives a verdict on, and that verdict. */
export interface MastVerdict {
  /** The code or codes as one key (`3.2/3.3`). */
  code: string;
  /** `3.1 premature termination`. */
  name: string;
  /** The MAST codes whose label it answers (either label 1 counts as 1). */
  labels: string[];
  /** Whether otrace says it of the run. */
  predicted: (a: Analysis) => boolean;
  /** otrace's evidence in words ('' when it says nothing). */
  evidence: (a: Analysis) => string;
}

const runStops = (a: Analysis): Analysis['stops'] => a.stops.filter((s) => (s.scope ?? 'run') === 'run');

/**
 * The MAST codes otrace answers, each with the verdict that claims it (MAST's definitions; turn and
 * phase ends carry no task verdict, so only run stops count):
 * - 3.1 premature termination: a run stop judged premature;
 * - 1.5 unaware of termination conditions: a run stop judged delayed, or no stop;
 * - 1.3 step repetition: a loop finding of any kind;
 * - 3.2 / 3.3 no, incomplete or incorrect verification: a verification finding (either label counts).
 */
export const MAST_VERDICTS: readonly MastVerdict[] = [
  {
    code: '3.1',
    name: '3.1 premature termination',
    labels: ['3.1'],
    predicted: (a) => runStops(a).some((s) => s.modes.includes('premature')),
    evidence: (a) => runStops(a).filter((s) => s.modes.includes('premature')).flatMap((s) => s.evidence).join('; '),
  },
  {
    code: '1.5',
    name: '1.5 unaware of termination',
    labels: ['1.5'],
    predicted: (a) => runStops(a).some((s) => s.modes.includes('delayed') || s.modes.includes('no_stop')),
    evidence: (a) => runStops(a).filter((s) => s.modes.includes('delayed') || s.modes.includes('no_stop')).flatMap((s) => s.evidence).join('; '),
  },
  {
    code: '1.3',
    name: '1.3 step repetition',
    labels: ['1.3'],
    predicted: (a) => a.loops.length > 0,
    evidence: (a) => a.loops.map((l) => `${l.kind}: ${l.message}`).join('; '),
  },
  {
    code: '3.2/3.3',
    name: '3.2/3.3 verification',
    labels: ['3.2', '3.3'],
    predicted: (a) => (a.verification ?? []).length > 0,
    evidence: (a) => (a.verification ?? []).map((v) => v.message).join('; '),
  },
];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A MAST label (0/1, 'yes'/'no', boolean) of `code` in a trace's metadata, as the MAST importer
 * keeps it (`ground_truth.mast`, `ground_truth.early_mapped`), or undefined when not labelled.
 */
export function mastLabel(metadata: Record<string, unknown> | undefined, code: string): boolean | undefined {
  const gt = isObject(metadata?.ground_truth) ? metadata.ground_truth : undefined;
  for (const holder of [gt?.mast, gt?.early_mapped, gt?.mast_annotation, metadata?.mast_annotation]) {
    if (!isObject(holder) || !Object.prototype.hasOwnProperty.call(holder, code)) continue;
    const v = holder[code];
    if (v === 1 || v === true || v === 'yes' || v === '1') return true;
    if (v === 0 || v === false || v === 'no' || v === '0') return false;
  }
  return undefined;
}

/** A MAST verdict's label in a trace: true when any of its codes is labelled 1, undefined when none is labelled. */
export function mastVerdictLabel(metadata: Record<string, unknown> | undefined, verdict: MastVerdict): boolean | undefined {
  const labels = verdict.labels.map((c) => mastLabel(metadata, c));
  return labels.every((l) => l === undefined) ? undefined : labels.some((l) => l === true);
}

/** The trace as the recorded labels need it: its metadata and where each event id is. */
export interface RecordedLabelTrace {
  metadata?: Record<string, unknown>;
  /** Index of the event with this id in the trace's events (the first), or undefined. */
  indexOf(id: string): number | undefined;
}

/** How many labels a trace records (0: none); cheap, read before the analysis runs. */
export function recordedLabelCount(metadata: Record<string, unknown> | undefined): number {
  const gt = isObject(metadata?.ground_truth) ? metadata.ground_truth : undefined;
  if (!gt) return 0;
  const who = (typeof gt.mistake_event === 'string' ? 1 : 0) + (typeof gt.mistake_agent === 'string' && gt.mistake_agent.trim() ? 1 : 0);
  return who + MAST_VERDICTS.filter((v) => mastVerdictLabel(metadata, v) !== undefined).length;
}

/** Same agent name: Who&When writes some with other case or spaces than the lanes. */
const sameAgent = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Judges the labels a trace records against its analysis (kinds `decisive_error`, `decisive_agent`,
 * `mast <code> <name>`); none when it records none. A Who&When step outside the events is not judged.
 */
export function judgeRecordedLabels(analysis: Analysis, trace: RecordedLabelTrace): Judgement[] {
  const gt = isObject(trace.metadata?.ground_truth) ? trace.metadata.ground_truth : undefined;
  if (!gt) return [];
  const out: Judgement[] = [];
  if (typeof gt.mistake_event === 'string') {
    const i = trace.indexOf(gt.mistake_event);
    if (i !== undefined) out.push(judgeDecisiveError(analysis, i, gt.mistake_event));
  }
  if (typeof gt.mistake_agent === 'string' && gt.mistake_agent.trim()) {
    const blame = analysis.blame;
    const event = typeof gt.mistake_event === 'string' ? gt.mistake_event : '';
    out.push(blame ? { kind: 'decisive_agent', agree: sameAgent(blame.agent, gt.mistake_agent), otrace: `blames ${blame.agent}`, event } : { kind: 'decisive_agent', agree: undefined, otrace: 'blames no event', event });
  }
  for (const v of MAST_VERDICTS) {
    const label = mastVerdictLabel(trace.metadata, v);
    if (label === undefined) continue;
    const said = v.predicted(analysis);
    out.push({ kind: `mast ${v.name}`, agree: said === label, otrace: said ? v.evidence(analysis).slice(0, 200) || 'said' : 'not said', event: '' });
  }
  return out;
}

/** Characters of a recorded answer shown in {@link recordedLabelWords}. */
const ANSWER_CHARS = 80;

/**
 * The labels a trace file records, in words, each beside otrace's verdict on the same question (for
 * the run summary: a stranger opening a labelled benchmark run sees what its dataset says of it):
 * - Who&When: `decisive mistake (the dataset's label): WebSurfer at step 16 (event h16); otrace blames Orchestrator at step 12 (event h12)`
 *   (each event named by its id and, when `at` finds it, by the point of the trace's clock the graph's axis shows),
 *   and `correct answer (the dataset's): 45` when the file records it;
 * - MAST: `failure modes labelled (MAST): 1.3 step repetition yes, 3.1 premature termination no; otrace agrees on 1 of 2`.
 * Labels are untrusted trace text (the view escapes them). Empty when the file records none.
 * @param metadata the trace's metadata (`trace.metadata`), where the importers keep the labels
 * @param at the point of an event id on the trace's clock (`step 16`, `t=9 s`: units.ts `formatAt`), or undefined when no event has it
 */
export function recordedLabelWords(analysis: Analysis, metadata: Record<string, unknown> | undefined, at: (id: string) => string | undefined = () => undefined): string[] {
  const gt = isObject(metadata?.ground_truth) ? metadata.ground_truth : undefined;
  if (!gt) return [];
  const out: string[] = [];
  const agent = typeof gt.mistake_agent === 'string' && gt.mistake_agent.trim() ? gt.mistake_agent.trim() : undefined;
  const event = typeof gt.mistake_event === 'string' ? gt.mistake_event : undefined;
  if (agent || event) {
    const blame = analysis.blame;
    // an event by its point on the clock the graph's axis shows, and by its id (a Who&When id `h16` is no unit)
    const where = (id: string) => {
      const point = at(id);
      return point === undefined ? `event ${id}` : `${point} (event ${id})`;
    };
    const said = blame ? `otrace blames ${blame.agent} at ${where(blame.event)}` : `otrace blames no step${analysis.outcome.status === 'failure' ? '' : ' (the trace records no failure to blame)'}`;
    out.push(`decisive mistake (the dataset's label): ${[agent, event && `at ${where(event)}`].filter(Boolean).join(' ')}; ${said}`);
  }
  const answer = typeof gt.ground_truth === 'string' ? gt.ground_truth : typeof gt.groundtruth === 'string' ? gt.groundtruth : undefined;
  if (answer !== undefined && answer.trim()) {
    const one = answer.replace(/\s+/g, ' ').trim();
    out.push(`correct answer (the dataset's): ${one.length > ANSWER_CHARS ? `${one.slice(0, ANSWER_CHARS - 1)}…` : one}`);
  }
  const modes = MAST_VERDICTS.flatMap((v) => {
    const label = mastVerdictLabel(metadata, v);
    return label === undefined ? [] : [{ name: v.name, label, agree: v.predicted(analysis) === label }];
  });
  if (modes.length) {
    const agreed = modes.filter((m) => m.agree).length;
    out.push(`failure modes labelled (MAST): ${modes.map((m) => `${m.name} ${m.label ? 'yes' : 'no'}`).join(', ')}; otrace agrees on ${agreed} of ${modes.length}`);
  }
  return out;
}

/**
 * {@link recordedLabelWords}'s `at` for a loaded trace: an event id's `t` on the trace's clock
 * (`step 16` on a step clock, `t=9 s`), the first event of that id. O(events) per call: asked of
 * the few ids a label and a blame name.
 */
export function eventPointOf(loaded: Pick<LoadedTrace, 'trace'>): (id: string) => string | undefined {
  const unit = timeUnitOf(loaded);
  return (id) => {
    const e = loaded.trace.events.find((x) => x.id === id);
    return e && Number.isFinite(e.t) ? formatAt(e.t, unit) : undefined;
  };
}
