/**
 * Builds the one {@link Finding} list every consumer shows (CLI, Problems, decorations, hovers,
 * CodeLens, graph) from the stop, loop, blame and best-stop results. Most severe first, then by
 * the main event's index. Pure: no `vscode`.
 */
import type { BestStop, Blame, Finding, Loop, StopFinding, VerificationFinding } from './types';
import { formatSpent, type TimeUnit } from '../trace/units';
import { ENDED_WORDS, stopReasonWords } from '../shared/stop-words';
import { CONTRARY_INPUT_RECORD } from './blame';

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

/** Inline marks stay short: about 40 characters at most. */
const INLINE_LIMIT = 40;

/**
 * The findings of one analysis.
 * @param stops every stop (those with no failure found, turn and phase ends included, as info with `mode: 'ok'`)
 * @param idAt the event id of an index of `loaded.trace.events`
 * @param units what the trace's time counts (seconds or steps) and whether it records tokens, for the figures in the messages
 * @param verification verification failures (a warning each, info when the evidence is weak)
 */
export function buildFindings(
  stops: StopFinding[],
  loops: Loop[],
  blame: Blame | null,
  bestStop: BestStop | null,
  idAt: (index: number) => string,
  units: { time: TimeUnit; tokens: boolean } = { time: 'seconds', tokens: true },
  verification: readonly VerificationFinding[] = [],
): Finding[] {
  const findings: Finding[] = [];
  const idsOf = (events: number[]) => events.map(idAt);
  for (const s of stops) {
    // the stop first, then the events its evidence names (a click on the finding frames them all)
    const events = [...new Set([s.index, ...(s.done_index === undefined ? [] : [s.done_index]), ...(s.unverified_index === undefined ? [] : [s.unverified_index]), ...(s.evidence_indices ?? [])])];
    findings.push({
      kind: 'stop',
      // weak evidence is an info, never a warning
      severity: s.finding === 'ok' || s.confidence === 'low' ? 'info' : s.finding === 'no_stop' ? 'error' : 'warning',
      events,
      ids: idsOf(events),
      inline: stopInline(s),
      message: s.message,
      mode: s.finding,
      scope: s.scope,
      sound: s.sound,
      ...(s.confidence ? { confidence: s.confidence } : {}),
      ...(s.wasted.tokens > 0 ? { tokens: s.wasted.tokens } : {}),
    });
  }
  for (const v of verification) {
    const events = [v.index, ...v.evidence_indices];
    const severity = v.confidence === 'low' ? 'info' : 'warning';
    // the mark's sign is its severity's, as Problems shows it (a ✖ on a warning read as an error)
    findings.push({ kind: 'verification', severity, events, ids: idsOf(events), inline: `${severity === 'warning' ? '⚠' : 'ℹ'} ${VERIFICATION_INLINE[v.kind]}`, message: v.message, confidence: v.confidence });
  }
  // a file cut off, or still being written, with no stop: its end is not the run's, so a loop it ends inside is no run that ended looping
  const endNotInFile = stops.find((s) => s.unended !== undefined);
  for (const l of loops) {
    const endedInside = l.unresolved && !endNotInFile;
    findings.push({
      kind: 'loop',
      // a step done twice and left behind is worth knowing, not a warning (a file read again by another agent)
      severity: endedInside ? 'error' : l.repetitions > 2 || l.unresolved ? 'warning' : 'info',
      events: l.indices,
      // the loop's ids are those of its indices, in the same order (not read again: 160k members at 1M events, 40 ms)
      ids: l.events,
      // a call and its result are one step of a repeated call: only a repeated sequence says its length
      inline: `loop ×${l.repetitions}${l.kind !== 'repeated_tool_call' && l.period > 1 && Number.isInteger(l.period) ? ` (${l.period} steps)` : ''}`,
      message: l.unresolved && endNotInFile ? `${l.message} (the file ends there, not the run: ${endNotInFile.unended === 'cut off' ? 'it is cut off' : 'it is still being written'}; whether the run left the loop is not known)` : l.message,
      loop: { period: l.period, repetitions: l.repetitions, agents: l.agents },
      ...(l.tokens > 0 ? { tokens: l.tokens } : {}),
    });
  }
  if (blame) findings.push(blameFinding(blame));
  if (bestStop && bestStop.after.events > 0) {
    findings.push({
      kind: 'best_stop',
      severity: 'info',
      events: [bestStop.index],
      ids: [bestStop.event],
      inline: `◆ best stop · ${bestStop.after.events} ev after`,
      message: `hindsight best stop point (${bestStop.basis === 'reward' ? 'the reward peaked here' : 'an agent first stated the answer the run ended with'}): ${formatSpent(bestStop.after, units.time, units.tokens)} came after it`,
    });
  }
  return findings
    .map((f) => ({ ...f, inline: clip(f.inline) }))
    .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.events[0] - b.events[0]);
}

const VERIFICATION_INLINE: Record<VerificationFinding['kind'], string> = {
  uncleared_review: 'review issues not cleared',
  failing_check_ignored: 'failing check ignored',
  unverified_claim: 'done claimed, run failed',
};

/**
 * A run stop's verdict in a word or two, as its mark ends: `sound`, `run failed`, `unverified`,
 * `premature`, `delayed`, `no stop`, `still looping`, `no verdict` (the file is cut off or still
 * being written); `turn ended` / `phase ended` for a stop that ends no run. For tallies (otrace
 * analyze DIR): `ok` alone counted a failed run and a sound stop as one.
 */
export function stopVerdict(s: StopFinding): string {
  if (s.scope !== 'run') return `${s.scope} ended`;
  if (s.unended) return 'no verdict';
  switch (s.finding) {
    case 'ok':
      return s.sound ? 'sound' : s.run_failed ? 'run failed' : 'unverified';
    case 'no_stop':
      return s.synthetic ? 'no stop' : 'still looping';
    default:
      return s.finding;
  }
}

/**
 * A stop's inline text (a mark in the trace, a CodeLens title, a graph label), in words
 * (src/shared/stop-words.ts), never a bare reason code or a bare "unknown": `■ turn ended (handed
 * back)`, `■ phase ended (max turns)`, `■ quality met ✓` (the trace records success), `■ task
 * complete · unverified` (it records none), `■ task complete · run failed` (it records a failure), `■ task complete · premature`, `■ stop (reason
 * unknown) · delayed +12 ev`, `■ no stop`, `■ no stop yet` (the file is being written), `■ file cut off ·
 * no verdict`; `?` after an inferred reason.
 */
export function stopInline(s: StopFinding): string {
  // (no reason is no inference: "reason unknown?" said both)
  const why = `${stopReasonWords(s.scope, s.reason)}${s.reason_source === 'inferred' && s.reason !== 'unknown' ? '?' : ''}`;
  if (s.scope !== 'run') return `■ ${ENDED_WORDS[s.scope] ?? 'stopped'} (${why})`;
  if (s.finding === 'no_stop' && s.synthetic) return '■ no stop';
  if (s.unended === 'in progress') return '■ no stop yet';
  if (s.unended === 'cut off') return '■ file cut off · no verdict';
  const reason = s.reason === 'unknown' ? `■ stop (${why})` : `■ ${why}`;
  switch (s.finding) {
    case 'ok':
      return s.sound ? `${reason} ✓` : s.run_failed ? `${reason} · run failed` : `${reason} · unverified`;
    case 'premature':
      return `${reason} · premature`;
    case 'delayed':
      return `${reason} · delayed +${s.wasted.events} ev`;
    case 'no_stop':
      return `${reason} · still looping`;
  }
}

function clip(text: string): string {
  return text.length > INLINE_LIMIT ? `${text.slice(0, INLINE_LIMIT - 1)}…` : text;
}

/**
 * The finding of a blame: an error where the run stopped on a recorded error and the blamed call
 * failed (basis `error`: the trace records both); elsewhere a hypothesis, a warning that says how
 * likely it is: the model's chance (basis `evidence`), or how often the contrary-input rule named the
 * labelled step (blame.ts `CONTRARY_INPUT_RECORD`). "✖ decisive error" as an error in Problems on a
 * guess that is right about one time in three read as a fact (a fresh user's trial, 2026-12-05).
 */
function blameFinding(blame: Blame): Finding {
  const base = { kind: 'blame' as const, events: [blame.index], ids: [blame.event], message: blame.message };
  if (blame.basis === 'error') return { ...base, severity: 'error', inline: '✖ decisive error' };
  const chance = blame.basis === 'evidence' ? blame.p : CONTRARY_INPUT_RECORD.step / CONTRARY_INPUT_RECORD.runs;
  // "likely" beside 5% read as a contradiction: the evidence model names the most likely of its steps; the contrary-input rule, a possible one
  const words = blame.basis === 'evidence' ? 'most likely decisive error' : 'possible decisive error';
  return { ...base, severity: 'warning', inline: `⚠ ${words}${chance === undefined ? '' : ` (${percent(chance)})`}` };
}

/** A chance as a whole percent, never 0% or 100% for a chance strictly between them. */
function percent(p: number): string {
  if (p > 0 && p < 0.005) return '<1%';
  if (p < 1 && p >= 0.995) return '>99%';
  return `${Math.round(p * 100)}%`;
}
