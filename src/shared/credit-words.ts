/**
 * The words for an event's credit estimate, the same in the inline mark, the hover, the details
 * pane and the graph's tooltip: signed credit when the trace records an outcome, else the event's
 * unsigned share of the result (how much of what the run ended with built on it; neither credit nor
 * blame, since nothing says whether the result was good). Shared by the host and the webview.
 */

/** `+0.42` / `−0.13` for signed credit (success / failure), `42% of the result` for an unsigned share (no outcome recorded). */
export function formatCredit(v: number, signed: boolean): string {
  const abs = Math.abs(v).toFixed(2);
  if (!signed) return `${shareWords(v)} of the result`;
  return v >= 0 ? `+${abs}` : `−${abs}`;
}

/** `42%`, or `<1%` for a share that rounds to 0 % but still says something (|v| ≥ {@link CREDIT_SHOWN_FROM}). */
export function shareWords(v: number): string {
  const pct = Math.round(Math.abs(v) * 100);
  return pct === 0 ? '<1%' : `${pct}%`;
}

/** `credit +0.42` / `credit −0.13` when signed, `42% of the result` when not: a value named in a sentence. */
export function creditLabel(v: number, signed: boolean): string {
  return signed ? `credit ${formatCredit(v, true)}` : formatCredit(v, false);
}

/** Credit below this (in absolute value) says nothing: it prints as `0.00` (two decimals), so it is not shown at all: the one threshold of the inline marks (engine/marks.ts), the hover, the graph and the CLI. */
export const CREDIT_SHOWN_FROM = 0.005;
/** Credit from this (in absolute value) tints its node (the graph's halo) and puts credit in the legend; fainter would not be seen. */
export const CREDIT_TINT_FROM = 0.05;

/** True when a credit estimate says something (|v| ≥ {@link CREDIT_SHOWN_FROM}): false for none (no analysis) and for what prints as 0.00. */
export function creditWorthShowing(v: number | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v) && Math.abs(v) >= CREDIT_SHOWN_FROM;
}
