/**
 * The unit of a trace's clock and figures for people in it. A trace's `t` counts seconds, unless
 * its importer says the file records no clock and `t` counts steps (`metadata.time: 'step-index'`:
 * Who&When, MAST AG2; see {@link countsSteps}). Every time, duration or span shown to a user is
 * written through these functions, so that a step is never printed as a second.
 *
 * Pure (no `vscode`): the CLI, the analysis, the engine and the host use it.
 */
import { countsSteps, type LoadedTrace } from './model';
import { countWords } from '../shared/count-words';

/** What `t`, `duration_s` and time spans of a trace count. */
export type TimeUnit = 'seconds' | 'steps';

/** The unit of a trace's clock: `steps` when its importer says `t` counts steps, else `seconds`. */
export function timeUnitOf(loaded: Pick<LoadedTrace, 'trace'>): TimeUnit {
  return countsSteps(loaded) ? 'steps' : 'seconds';
}

/** A number for people: at most 3 decimals (the same rounding as the CLI's figures). */
function round(x: number): number {
  return Math.abs(x) < 1e15 ? Math.round(x * 1000) / 1000 : x;
}

/**
 * A point in time with its unit: `t=9 s` (seconds since the trace's start) or `step 9`.
 * @param t the event's `t`; @param unit the trace's clock ({@link timeUnitOf}).
 */
export function formatAt(t: number, unit: TimeUnit): string {
  return unit === 'steps' ? `step ${round(t)}` : `t=${round(t)} s`;
}

/**
 * An amount of time with its unit: `86 s`, or `86 steps` / `1 step`.
 * @param amount seconds, or steps when `unit` is `steps`.
 */
export function formatSpan(amount: number, unit: TimeUnit): string {
  if (unit === 'steps') return `${round(amount)} ${round(amount) === 1 ? 'step' : 'steps'}`;
  return `${round(amount)} s`;
}

/**
 * Work as a clause: `86 events, 1200 tokens, 86 s` (`86 steps` on a step clock); the tokens are
 * left out when the trace records none (`0 tokens` would read as a measurement).
 * @param spent events, tokens and time (seconds, or steps when `unit` is `steps`).
 * @param tokensRecorded whether any event of the trace carries tokens.
 */
export function formatSpent(spent: { events: number; tokens: number; seconds: number }, unit: TimeUnit, tokensRecorded: boolean): string {
  const parts = [countWords(spent.events, 'event')];
  if (tokensRecorded) parts.push(countWords(spent.tokens, 'token'));
  parts.push(formatSpan(spent.seconds, unit));
  return parts.join(', ');
}
