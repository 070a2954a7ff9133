/**
 * The cap on diagnostics per file: VS Code's Problems view and the editor slow down with tens of
 * thousands of entries, and a broken 1M-line trace can have as many problems. The first
 * {@link MAX_DIAGNOSTICS} are shown; the rest become one summary. Pure: no `vscode`.
 */
import type { Problem, Severity } from '../trace/model';

/** Most diagnostics published for one file. */
export const MAX_DIAGNOSTICS = 1000;

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/**
 * The first `max` items of a list, and when there are more, one summary problem of the rest: at
 * the first one left out, with the most severe severity among them and their count per severity.
 * @param items in the order they are shown (the reader's problems by position, then findings).
 * @param problemOf the severity and range of an item.
 * @returns `shown` (at most `max` items) and `summary` (undefined when nothing was left out).
 */
export function capDiagnostics<T>(items: readonly T[], problemOf: (item: T) => Pick<Problem, 'severity' | 'range'>, max = MAX_DIAGNOSTICS): { shown: T[]; summary: Problem | undefined } {
  if (items.length <= max) return { shown: [...items], summary: undefined };
  const rest = items.slice(max).map(problemOf);
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const p of rest) counts[p.severity]++;
  const severity = rest.reduce<Severity>((s, p) => (RANK[p.severity] < RANK[s] ? p.severity : s), 'info');
  const parts = (['error', 'warning', 'info'] as const).filter((s) => counts[s] > 0).map((s) => `${counts[s].toLocaleString('en-US')} ${s === 'info' ? 'info' : `${s}${counts[s] === 1 ? '' : 's'}`}`);
  return {
    shown: items.slice(0, max),
    summary: {
      severity,
      message: `${rest.length.toLocaleString('en-US')} more problems not shown (${parts.join(', ')}), from here on; the first ${max.toLocaleString('en-US')} are listed. \`otrace validate FILE\` prints them all`,
      range: rest[0].range,
    },
  };
}
