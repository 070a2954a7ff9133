/**
 * The plain figures of an event's hover: when it happened and its figures (a recorded failure,
 * tokens, cost, duration, stop reason), each with its unit: seconds, or steps when the trace records no clock; the event's
 * own tokens (a model call's output) apart from its call's context by kind. Pure (no `vscode`); the
 * hover escapes them (src/host/editor/hover.ts).
 */
import type { EventInfo } from '../../engine/query-types';
import { reasonField } from '../../shared/stop-words';
import { formatUsage } from '../../trace/tokens';
import { formatSpan } from '../../trace/units';

/** When the event happened (`t = 9 s`, or `step 9` on a trace that counts steps) and its figures. */
export function hoverFigures(e: EventInfo): { when: string; figures: string[] } {
  const unit = e.countsSteps ? 'steps' : 'seconds';
  const when = e.countsSteps ? `step ${round(e.t)}` : `t = ${round(e.t)} s`;
  // a failure the trace records comes first: the content (an exit code at its end) may be cut in the preview
  const figures: string[] = e.failed ? [`failed (${e.failed})`] : [];
  const usage = e.usage;
  if (usage && usage.output !== undefined) figures.push(`${formatUsage({ output: usage.output, reasoning: usage.reasoning })} ${usage.output === 1 ? 'token' : 'tokens'} of its own`);
  else if (e.tokens !== undefined) figures.push(`${e.tokens.toLocaleString('en-US')} tokens`);
  if (usage && formatUsage(usage)) figures.push(`its model call: ${formatUsage(usage)}`);
  if (e.cost !== undefined) figures.push(`cost ${e.cost}`);
  if (e.duration_s !== undefined) figures.push(`${formatSpan(e.duration_s, unit)} long`);
  if (e.reason !== undefined) figures.push(`reason: ${reasonField(e.scope, e.reason)}`);
  return { when, figures };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
