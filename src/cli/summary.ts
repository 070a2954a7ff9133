/**
 * `otrace summary FILE [--json]`: the run at a glance (issue 26): what was asked, how it ended, what
 * it spent (tokens by kind, an estimated cost), who did what, what went wrong or "no problems
 * found". The summary is src/analysis/run-summary.ts; prices come from src/cli/prices.ts.
 * Text output: a few short lines, every trace string through `safe`, no line over 1,000 characters.
 */
import { parseArgs } from 'node:util';
import { analyzeTrace } from '../analysis';
import { oneLine, runSummary, type RunSummary, type SummaryTokens } from '../analysis/run-summary';
import { eventPointOf, recordedLabelWords } from '../analysis/labels/recorded';
import { withLaneLabels } from '../engine/lane-labels';
import type { LoadedTrace } from '../trace/model';
import { formatUsage } from '../trace/tokens';
import { formatSpan } from '../trace/units';
import { clipList, type Command, fail, loadOne, MAX_MESSAGE, safe, safeJson, safePath, writeLines } from './common';
import { priceCall } from './prices';
import { countWords } from '../shared/count-words';
import { stepRange } from '../shared/step-range';
import { laterPromptsWords } from '../shared/prompt-words';
import { endedLine } from '../shared/stop-words';
import { failedCallWords } from '../shared/failed-call-words';
import { compactionsIn, compactionWords } from '../shared/agent-words';

/** Agents listed one a line; the rest are counted. */
const AGENT_LINES = 6;
/** Characters of a task or answer shown on its line. */
const SHOWN_TEXT = 300;
/** Characters of what an agent was asked shown on its line. */
const AGENT_SHOWN = 120;

export const summary: Command = {
  usage: 'otrace summary FILE [--json]                                # what was asked, how it ended, the labels the file records, tokens and cost (recorded, else estimated), agents, problems',
  run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
    const [file] = positionals;
    if (!file || positionals.length > 1) fail('summary takes one FILE');
    const one = loadOne(file);
    if (typeof one === 'number') return one;
    const s = traceSummary(one.loaded);
    if (values.json) process.stdout.write(safeJson(s) + '\n');
    else writeLines(process.stdout, summaryLines(file, s));
    return one.exit;
  },
};

/**
 * The run summary of a trace as `otrace summary` gives it: src/analysis/run-summary.ts, priced
 * (src/cli/prices.ts), each agent labelled as the graph labels its lane (src/engine/lane-labels.ts:
 * `context compaction`, `Explore: <what it was asked>`), else by the summary's own label; with
 * `labelled`, the labels the file records beside otrace's verdicts (src/analysis/labels/recorded.ts),
 * when it records any.
 */
export function traceSummary(loaded: LoadedTrace): LabelledSummary {
  const analysis = analyzeTrace(loaded);
  const labelled = recordedLabelWords(analysis, loaded.trace.metadata as Record<string, unknown> | undefined, eventPointOf(loaded));
  return { ...withLaneLabels(runSummary(loaded, analysis, { price: priceCall }), loaded.trace), ...(labelled.length ? { labelled } : {}) };
}

/** A run summary and the labels its file records, in words (`otrace summary`). */
export type LabelledSummary = RunSummary & { labelled?: string[] };

/** `1 (the most severe)`, `3 (the most severe first)`, `7 (the 5 most severe listed)`. */
function problemCount(s: RunSummary): string {
  const all = Math.max(s.finding_count ?? 0, s.findings.length);
  if (all === 1) return '1 (the most severe)';
  return all > s.findings.length ? `${all} (the ${s.findings.length} most severe listed)` : `${all} (the most severe first)`;
}

/** `4`, or `3 · 1 context compaction` when a listed agent is a compaction (a lane's context summarised: no agent of the run). */
function agentsCount(s: RunSummary): string {
  const compactions = compactionsIn(s.agents.map((a) => a.label));
  return `${(s.agent_count - compactions).toLocaleString('en-US')}${compactionWords(compactions)}`;
}

/** The text lines of `otrace summary FILE` (trace content made safe for the terminal, lists clipped). */
export function summaryLines(file: string, s: LabelledSummary): string[] {
  const e = s.ended;
  const lines = [
    safePath(file),
    `task       ${s.task ? safe(s.task, SHOWN_TEXT) : 'not found (no recorded task, no user prompt)'}`,
    ...(s.later_prompts ? [`           ${laterPromptsWords(s.later_prompts, (t) => safe(t, SHOWN_TEXT))}`] : []),
    `ended      ${!e ? 'no events' : endedLine(e, (t) => safe(t, SHOWN_TEXT))}`,
    `outcome    ${s.outcome ? `${s.outcome.status} (${safe(s.outcome.source)})` : 'not recorded'}`,
    // the file's own labels (a benchmark's ground truth), each beside otrace's verdict
    ...(s.labelled ?? []).map((l, k) => `${k === 0 ? 'labelled   ' : '           '}${safe(l, SHOWN_TEXT)}`),
    `duration   ${duration(s.duration)}`,
    `tokens     ${tokenWords(s.tokens) || (s.event_tokens ? `${s.event_tokens.toLocaleString('en-US')} (no kind recorded)` : 'none recorded')}`,
    `cost       ${cost(s)}`,
    `agents     ${agentsCount(s)}${s.agent_count > s.agents.length ? ` (the ${s.agents.length} with the most events listed)` : ''}${s.spawned_by !== undefined ? ` (a sub-agent of ${safe(s.spawned_by)}, whose file holds the whole run)` : ''}`,
    ...s.agents.slice(0, AGENT_LINES).map((a) => {
      const who = a.label ? `${safe(a.label)} (${safe(a.name)})` : safe(a.name);
      const spent = [`${a.events} ${a.events === 1 ? 'event' : 'events'}`, ...(inOut(a.tokens) ? [inOut(a.tokens)] : [])].join(', ');
      return `  ${who}: ${spent}${a.task ? `; asked: ${safe(oneLine(a.task, AGENT_SHOWN), SHOWN_TEXT)}` : ''}`;
    }),
    ...(s.agent_count > AGENT_LINES ? [`  … and ${(s.agent_count - Math.min(AGENT_LINES, s.agents.length)).toLocaleString('en-US')} more`] : []),
    `problems   ${s.findings.length ? problemCount(s) : s.failed_calls ? 'none found by the analysis (but see the failed calls below)' : 'no problems found'}`,
    ...s.findings.map((f) => `  ${f.severity} ${kindPrefix(f.kind, f.message)}${safe(f.message, MAX_MESSAGE)}`),
    // a fact the trace records, beside the verdicts: a failed call is never hidden behind "no problems found"
    ...(s.failed_calls ? [`failed     ${failedCallWords(s.failed_calls.count)}; the first: ${safe(s.failed_calls.first.tool, 100)}: ${safe(s.failed_calls.first.error, SHOWN_TEXT)}`] : []),
  ];
  return lines;
}

/** `best stop: ` before a finding's message, nothing when the message already opens with its kind (`verification: …`). */
function kindPrefix(kind: string, message: string): string {
  const words = kind.replace('_', ' ');
  return message.startsWith(`${words}:`) ? '' : `${words}: `;
}

/** `2,506.4 s (41 min 46 s)`, or on a step clock the steps it runs over, `steps 0–19` (a span of 19 steps is 20 records). */
function duration(d: RunSummary['duration']): string {
  if (d.unit === 'steps') return stepRange(d.from, d.value);
  if (d.value < 60) return formatSpan(d.value, d.unit);
  const s = Math.round(d.value);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${formatSpan(d.value, d.unit)} (${h ? `${h} h ` : ''}${m} min ${s % 60} s)`;
}

/** Tokens by kind in words, the kinds recorded only. */
function tokenWords(t: SummaryTokens): string {
  const recorded: Partial<Record<keyof SummaryTokens, number>> = {};
  for (const [k, v] of Object.entries(t) as [keyof SummaryTokens, number | null][]) if (v !== null) recorded[k] = v;
  return formatUsage(recorded);
}

/** `1,234,567 tokens in, 4,321 out` (input with cache reads and writes); '' when none is recorded. */
function inOut(t: SummaryTokens): string {
  if (Object.values(t).every((v) => v === null)) return '';
  const read = (t.input ?? 0) + (t.cache_read ?? 0) + (t.cache_write ?? 0);
  return `${read.toLocaleString('en-US')} tokens in, ${(t.output ?? 0).toLocaleString('en-US')} out`;
}

/**
 * `$0.0412 (recorded: the trace's total)`, `$0.31 (recorded on 12 calls; 2 model calls with no recorded
 * cost left out)`, `~$12.34 (estimate from list prices of claude-opus-4-6, …; 2 calls of unknown models
 * left out)`, or why there is none.
 */
function cost(s: RunSummary): string {
  const c = s.cost;
  if (!c) {
    if (!Object.values(s.tokens).every((v) => v === null)) return 'unknown (no model with a known price)';
    return s.event_tokens ? 'unknown (tokens recorded with no kind: input and output are priced apart)' : 'unknown (no tokens recorded)';
  }
  const usd = c.usd === 0 ? '0.00' : c.usd >= 0.01 ? c.usd.toFixed(2) : c.usd.toPrecision(2);
  if (c.basis === 'trace total') return `$${usd} (recorded: the trace's total)`;
  if (c.basis === 'recorded calls') {
    const left = c.unpriced_calls ? `; ${countWords(c.unpriced_calls, 'model call')} with no recorded cost left out` : '';
    return `$${usd} (recorded on the calls${c.models.length ? ` of ${clipList(c.models, (m) => safe(m))}` : ''}${left})`;
  }
  const left = c.unpriced_calls ? `; ${countWords(c.unpriced_calls, 'model call')} of unknown models left out` : '';
  return `~$${usd} (estimate from list prices of ${clipList(c.models, (m) => safe(m))}${left})`;
}
