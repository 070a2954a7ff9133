/**
 * The plain figures of an event's hover: when it happened and its figures (tokens, cost, duration,
 * stop reason), each with its unit. Pure (no `vscode`); the hover escapes them (src/editor/hover.ts).
 */
import type { EventInfo } from '../session/query-types';

/** When the event happened (`t = 9 s`, or `step 9` on a trace that counts steps) and its figures. */
export function hoverFigures(e: EventInfo): { when: string; figures: string[] } {
  const when = e.countsSteps ? `step ${round(e.t)}` : `t = ${round(e.t)} s`;
  const figures: string[] = [];
  if (e.tokens !== undefined) figures.push(`${e.tokens.toLocaleString('en-US')} tokens`);
  if (e.cost !== undefined) figures.push(`cost ${e.cost}`);
  if (e.duration_s !== undefined) figures.push(`${round(e.duration_s)} s long`);
  if (e.reason !== undefined) figures.push(`reason ${e.reason}`);
  return { when, figures };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
