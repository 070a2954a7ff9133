/**
 * How often otrace's verdicts agree with the labels people gave (`otrace labels agreement DIR`):
 * each attached label is set against what otrace said about the same event, per kind:
 * - should_have_stopped: otrace agrees when it puts its hindsight best stop on that event, when the
 *   event is the run's stop and otrace finds it neither premature nor missing, or else when it finds
 *   the run's stop delayed or missing (no_stop); it disagrees when it gives the run stop another verdict.
 * - stopped_too_early: the stop labelled (else the run's final stop) is premature by otrace; a turn
 *   or phase end gets no verdict from otrace (unknown).
 * - decisive_error: otrace blames that very event; unknown when otrace blames none (no failure recorded).
 * - good_step: otrace's signed credit of the event is positive (negative, or the event blamed:
 *   disagree); unknown when credit is unsigned (no outcome) or zero.
 * - accept_finding / reject_finding: the person's verdict on an otrace finding, counted per finding
 *   kind (`finding:stop`, `finding:loop`…).
 * Notes are counted, never judged. The labels a trace records itself (Who&When, MAST) are judged in
 * ./recorded.ts. Pure.
 */
import type { Analysis, StopFinding } from '../types';
import type { AttachedLabel } from './attach';

/** What otrace said about one labelled event, set against the label. */
export interface Judgement {
  /** The label's kind, or `finding:<kind>` for an accepted or rejected finding. */
  kind: string;
  /** True: otrace agrees; false: it does not; undefined: otrace gives no verdict there. */
  agree: boolean | undefined;
  /** otrace's verdict in a few words (the evidence of the judgement). */
  otrace: string;
  /** The event id; '' for a label on the whole trace (a MAST failure mode). */
  event: string;
}

/** Judges each attached label of one trace against its analysis (notes give no judgement). */
export function judgeLabels(analysis: Analysis, labels: readonly AttachedLabel[]): Judgement[] {
  const out: Judgement[] = [];
  const runStop = finalRunStop(analysis);
  for (const l of labels) {
    const event = l.record.event;
    const i = l.index;
    switch (l.record.label) {
      case 'should_have_stopped': {
        if (analysis.best_stop?.index === i) out.push({ kind: l.record.label, agree: true, otrace: 'best stop here', event });
        else if (!runStop) out.push({ kind: l.record.label, agree: undefined, otrace: 'no run stop', event });
        else if (runStop.index === i) out.push({ kind: l.record.label, agree: !runStop.modes.some((m) => m === 'premature' || m === 'no_stop'), otrace: `run stopped here: ${runStop.modes.length ? runStop.modes.join(', ') : runStop.finding}`, event });
        else {
          const late = runStop.modes.filter((m) => m === 'delayed' || m === 'no_stop');
          out.push({ kind: l.record.label, agree: late.length > 0, otrace: `run stop ${late.length ? late.join(', ') : runStop.finding}`, event });
        }
        break;
      }
      case 'stopped_too_early': {
        const stop = analysis.stops.find((s) => s.index === i) ?? runStop;
        if (!stop || stop.scope !== 'run') out.push({ kind: l.record.label, agree: undefined, otrace: stop ? `${stop.scope} end: no verdict` : 'no run stop', event });
        else out.push({ kind: l.record.label, agree: stop.modes.includes('premature'), otrace: `run stop ${stop.modes.length ? stop.modes.join(', ') : stop.finding}`, event });
        break;
      }
      case 'decisive_error':
        out.push(judgeDecisiveError(analysis, i, event));
        break;
      case 'good_step': {
        const value = analysis.credit.by_index[i] ?? 0;
        if (analysis.blame?.index === i) out.push({ kind: l.record.label, agree: false, otrace: 'blamed here', event });
        else if (!analysis.credit.signed || value === 0) out.push({ kind: l.record.label, agree: undefined, otrace: analysis.credit.signed ? 'no credit' : 'credit unsigned (no outcome)', event });
        else out.push({ kind: l.record.label, agree: value > 0, otrace: `credit ${value > 0 ? '+' : ''}${Math.round(value * 1000) / 1000}`, event });
        break;
      }
      case 'accept_finding':
      case 'reject_finding': {
        const f = l.record.finding!;
        out.push({ kind: `finding:${f.kind}`, agree: l.record.label === 'accept_finding', otrace: f.inline ?? f.mode ?? f.kind, event });
        break;
      }
      case 'note':
        break;
    }
  }
  return out;
}

/** A decisive-error label on event `i` (id `event`): otrace agrees when it blames that very event; unknown when it blames none. */
export function judgeDecisiveError(analysis: Analysis, i: number, event: string): Judgement {
  const blame = analysis.blame;
  if (!blame) return { kind: 'decisive_error', agree: undefined, otrace: 'blames no event', event };
  return { kind: 'decisive_error', agree: blame.index === i, otrace: blame.index === i ? 'blamed here' : `blames ${blame.event}`, event };
}

/** The run's final stop: the last stop that ends the run, else the last stop; undefined when none. */
function finalRunStop(analysis: Analysis): StopFinding | undefined {
  for (let k = analysis.stops.length - 1; k >= 0; k--) if (analysis.stops[k].scope === 'run') return analysis.stops[k];
  return analysis.stops[analysis.stops.length - 1];
}

/** Counts of one kind: labels, and how many otrace agrees with, does not, or gives no verdict on. */
export interface AgreementCount {
  kind: string;
  labels: number;
  agree: number;
  disagree: number;
  unknown: number;
}

/** Tallies judgements per kind, in the order of {@link KIND_ORDER} then by name. */
export function tallyAgreement(judgements: readonly Judgement[]): AgreementCount[] {
  const byKind = new Map<string, AgreementCount>();
  for (const j of judgements) {
    let c = byKind.get(j.kind);
    if (!c) byKind.set(j.kind, (c = { kind: j.kind, labels: 0, agree: 0, disagree: 0, unknown: 0 }));
    c.labels++;
    if (j.agree === true) c.agree++;
    else if (j.agree === false) c.disagree++;
    else c.unknown++;
  }
  const rank = (k: string) => (KIND_ORDER.indexOf(k) === -1 ? KIND_ORDER.length : KIND_ORDER.indexOf(k));
  return [...byKind.values()].sort((a, b) => rank(a.kind) - rank(b.kind) || a.kind.localeCompare(b.kind));
}

const KIND_ORDER = ['should_have_stopped', 'stopped_too_early', 'decisive_error', 'decisive_agent', 'good_step'];

/**
 * The agreement table as text: per kind the labels, agree, disagree, unknown and the agreement rate
 * agree / (agree + disagree) in percent ("—" when otrace judged none of them).
 */
export function formatAgreement(counts: readonly AgreementCount[]): string {
  const rows = [['kind', 'labels', 'agree', 'disagree', 'unknown', 'agreement']];
  for (const c of counts) rows.push([c.kind, String(c.labels), String(c.agree), String(c.disagree), String(c.unknown), c.agree + c.disagree ? `${Math.round((100 * c.agree) / (c.agree + c.disagree))}%` : '—']);
  const widths = rows[0].map((_, k) => Math.max(...rows.map((r) => r[k].length)));
  return rows.map((r) => r.map((cell, k) => (k === 0 ? cell.padEnd(widths[k]) : cell.padStart(widths[k]))).join('  ')).join('\n');
}
