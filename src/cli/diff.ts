/**
 * `otrace diff A B [--json]`: two runs compared (issue 28): where they first diverge, with both
 * sides' event in words, how each ended and with what outcome, per agent pair what changed, and the
 * findings one run has alone. `otrace diff --group DIR [--json]`: many runs of one task clustered by
 * where they leave a reference run, with how the stop and the outcome vary per cluster (diff-group.ts).
 * The comparison is src/analysis/compare; text output through `safe`, no line over 1,000 characters.
 */
import { parseArgs } from 'node:util';
import { analyzeTrace } from '../analysis';
import { compareRuns, type AgentComparison, type Difference, type LaneDeltas, type LaneStats, type RunComparison, type RunSide } from '../analysis/compare';
import { eventLabel, firstWords, toolName } from '../engine/event-labels';
import type { LoadedTrace } from '../trace/model';
import { canonicalType, type TraceEvent } from '../trace/schema';
import { TOKEN_KINDS, type TokenKind } from '../trace/tokens';
import { formatSpan, type TimeUnit } from '../trace/units';
import { type Command, fail, loadOne, MAX_MESSAGE, safe, safeJson, recordPlace, safePath, writeLines } from './common';
import { groupCommand } from './diff-group';
import { countWords } from '../shared/count-words';
import { endedLine } from '../shared/stop-words';
import { formatTimeSpent } from '../shared/duration-words';
import { DIFFERENT_TASKS, differentTasks } from '../shared/task-words';
import { recordsFailure } from '../shared/recorded-failure';

/** Agent pairs listed one a line; the rest are counted. */
const AGENT_LINES = 8;
/** Findings of one side listed; the rest are counted. */
const FINDING_LINES = 6;
/** Characters of an event's words. */
const EVENT_WORDS = 160;

export const diff: Command = {
  usage: 'otrace diff A B [--json] | otrace diff --group DIR [--json]   # two runs compared: first divergence, stops, outcomes, per-agent deltas; a group of runs clustered',
  run(args) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' }, group: { type: 'string' } } });
    if (values.group !== undefined) {
      if (positionals.length > 0) fail('diff --group takes one DIR and no other file');
      return groupCommand(values.group, values.json === true);
    }
    if (positionals.length !== 2) fail('diff takes two files A B (or --group DIR)');
    const [fileA, fileB] = positionals;
    const a = loadOne(fileA);
    if (typeof a === 'number') return a;
    const b = loadOne(fileB);
    if (typeof b === 'number') return b;
    const c = compareRuns({ loaded: a.loaded, analysis: analyzeTrace(a.loaded) }, { loaded: b.loaded, analysis: analyzeTrace(b.loaded) });
    if (values.json) process.stdout.write(safeJson(c) + '\n');
    else writeLines(process.stdout, diffLines({ file: fileA, loaded: a.loaded }, { file: fileB, loaded: b.loaded }, c));
    return Math.max(a.exit, b.exit);
  },
};

/** A run as the text names it: its path and its trace (for event words and lines). */
export interface DiffSide {
  file: string;
  loaded: LoadedTrace;
}

/** The text lines of `otrace diff A B` (trace content made safe for the terminal, lists clipped). */
export function diffLines(a: DiffSide, b: DiffSide, c: RunComparison): string[] {
  const lines = [`A  ${safePath(a.file)} (${safe(c.a.format)}, ${countWords(c.a.events, 'event')})`, `B  ${safePath(b.file)} (${safe(c.b.format)}, ${countWords(c.b.events, 'event')})`];
  if (c.a.task && c.a.task === c.b.task) lines.push(`task       ${safe(c.a.task, 300)}`);
  else lines.push(`task       A: ${c.a.task ? safe(c.a.task, 300) : 'not found'}`, `           B: ${c.b.task ? safe(c.b.task, 300) : 'not found'}`);
  if (differentTasks(c.a.task, c.b.task)) lines.push(`note       ${DIFFERENT_TASKS}`);
  lines.push(...divergenceLines(a, b, c));
  lines.push(`ended      A: ${ended(c.a)}`, `           B: ${ended(c.b)}`);
  lines.push(`outcome    A: ${outcome(c.a)}`, `           B: ${outcome(c.b)}`);
  lines.push(`steps      ${c.same.toLocaleString('en-US')} the same, ${c.only_in_a.length.toLocaleString('en-US')} only in A, ${c.only_in_b.length.toLocaleString('en-US')} only in B, ${c.changed.length.toLocaleString('en-US')} changed, ${c.moved.length.toLocaleString('en-US')} moved`);
  lines.push(`agents     ${agentCounts(c)}`);
  for (const p of c.agents.slice(0, AGENT_LINES)) lines.push(`  ${agentLine(p, c)}`);
  if (c.agents.length > AGENT_LINES) lines.push(`  … and ${(c.agents.length - AGENT_LINES).toLocaleString('en-US')} more`);
  for (const [which, list] of [['A', c.findings.only_in_a], ['B', c.findings.only_in_b]] as const) {
    lines.push(`findings only in ${which}: ${list.length === 0 ? 'none' : list.length}`);
    for (const f of list.slice(0, FINDING_LINES)) lines.push(`  ${f.severity} ${f.kind.replace('_', ' ')}${f.mode && f.mode !== 'ok' ? ` (${f.mode.replace('_', ' ')})` : f.mode === 'ok' ? ' (sound)' : ''}: ${safe(f.message, MAX_MESSAGE)}`);
    if (list.length > FINDING_LINES) lines.push(`  … and ${list.length - FINDING_LINES} more`);
  }
  return lines;
}

/** The first divergence: where in each run, and both sides' event in words (or what the other run does there). */
function divergenceLines(a: DiffSide, b: DiffSide, c: RunComparison): string[] {
  const d = c.first_divergence;
  if (!d) return ['first divergence  none: the runs do the same steps'];
  const pair = c.agents[d.agents];
  const lane = pair.a !== null && pair.b !== null ? (pair.a === pair.b ? safe(pair.a) : `${safe(pair.a)} ↔ ${safe(pair.b)}`) : pair.a !== null ? `${safe(pair.a)} (only in A)` : `${safe(pair.b)} (only in B)`;
  const what = { only_in_a: 'a step only in A', only_in_b: 'a step only in B', changed: 'the same step with other content', moved: 'a step done at another point' }[d.kind];
  const lines = [
    `first divergence  ${what}, agent ${lane}`,
    `  A: ${d.a_index === null ? `nothing: ${nextWords(a, b, c, d, 'a')}` : `${where(a, d.a_index)}  ${eventWords(a.loaded.trace.events[d.a_index])}`}`,
    `  B: ${d.b_index === null ? `nothing: ${nextWords(b, a, c, d, 'b')}` : `${where(b, d.b_index)}  ${eventWords(b.loaded.trace.events[d.b_index])}`}`,
  ];
  // two steps whose words read the same (their difference lies past the words shown): where their content differs
  if (d.a_index !== null && d.b_index !== null) {
    const ea = a.loaded.trace.events[d.a_index];
    const eb = b.loaded.trace.events[d.b_index];
    const at = eventWords(ea) === eventWords(eb) ? firstDifference(contentOf(ea), contentOf(eb)) : undefined;
    if (at) lines.push(`  where they differ (character ${at.index + 1}):`, `    A: ${at.a}`, `    B: ${at.b}`);
  }
  return lines;
}

const contentOf = (e: TraceEvent): string => (typeof e.content === 'string' ? e.content : '');

/** Characters shown on each side of the first difference of two contents. */
const AROUND = 40;

/**
 * Where two contents first differ: the character index and a window of each around it (`…` where
 * cut), made safe for the terminal; undefined when they are the same.
 */
export function firstDifference(a: string, b: string): { index: number; a: string; b: string } | undefined {
  if (a === b) return undefined;
  let k = 0;
  while (k < a.length && k < b.length && a.charCodeAt(k) === b.charCodeAt(k)) k++;
  const from = Math.max(0, k - AROUND);
  const window = (s: string) => `${from > 0 ? '…' : ''}${s.slice(from, k + AROUND)}${s.length > k + AROUND ? '…' : ''}`;
  return { index: k, a: safe(window(a), 3 * AROUND), b: safe(window(b), 3 * AROUND) };
}

/** For a step on one side only: what the other run does next in the same lane pair, or that it does nothing more there. */
function nextWords(side: DiffSide, other: DiffSide, c: RunComparison, d: Difference, which: 'a' | 'b'): string {
  const pair = c.agents[d.agents];
  if ((which === 'a' ? pair.a : pair.b) === null) return 'no such agent in this run';
  // the first pair of the same steps after the divergence (by the other run's clock, ties in file order)
  const at = (which === 'a' ? d.b_index : d.a_index)!;
  const events = other.loaded.trace.events;
  const after = (k: number) => events[k].t > events[at].t || (events[k].t === events[at].t && k > at);
  const next = pair.aligned.find(([x, y]) => after(which === 'a' ? y : x));
  const mine = next ? (which === 'a' ? next[0] : next[1]) : undefined;
  return mine === undefined ? 'no later step of this agent is one the other run does' : `it goes on with ${where(side, mine)}  ${eventWords(side.loaded.trace.events[mine])}`;
}

/** `FILE:LINE` of an event (its own file when it came from another one, a sub-agent file), else `event #N`. */
function where(side: DiffSide, index: number): string {
  const o = side.loaded.eventOrigins.get(index);
  return o ? recordPlace(o.file ?? side.file, o.range.start) : `event #${index + 1}`;
}

/** An event in words: `tool call Bash: npm test`, `tool result Bash (failed): exit 1 …`, `message user: Work on…`, `stop: task_complete`. */
export function eventWords(e: TraceEvent | undefined): string {
  if (!e) return 'no event';
  const type = canonicalType(e.type);
  if (type === 'tool_call') return safe(`tool call ${eventLabel(e, true)}`, EVENT_WORDS);
  if (type === 'tool_result') {
    const failed = recordsFailure(e);
    const words = firstWords(typeof e.content === 'string' ? e.content : '', 100);
    return safe(`tool result${e.tool ? ` ${toolName(e.tool)}` : ''}${failed ? ' (failed)' : ''}${words ? `: ${words}` : ''}`, EVENT_WORDS);
  }
  const label = eventLabel(e, false);
  const head = e.type.replace(/_/g, ' ');
  return safe(label.startsWith(head) || label.startsWith(`${type}:`) ? label : `${head} ${label}`, EVENT_WORDS);
}

function ended(s: RunSide): string {
  const e = s.ended;
  if (!e) return 'no events';
  return endedLine(e, (t) => safe(t, 200));
}

function outcome(s: RunSide): string {
  return s.outcome ? `${s.outcome.status} (${safe(s.outcome.source)})` : 'not recorded';
}

/** One agent pair: names, how paired, and A → B (±delta) per figure. */
function agentLine(p: AgentComparison, c: RunComparison): string {
  if (p.a === null || p.b === null) {
    const s = (p.a_stats ?? p.b_stats)!;
    const unit = p.a !== null ? c.a.time_unit : c.b.time_unit;
    return `${safe(p.a ?? p.b)} (only in ${p.a !== null ? 'A' : 'B'}): ${countWords(s.events, 'event')}, ${countWords(s.tool_calls, 'tool call')}, ${s.failed_calls} failed${tokensOf(s) ? `, tokens ${tokensOf(s)}` : ''}, ${formatSpan(s.time, unit)}`;
  }
  const a = p.a_stats!;
  const b = p.b_stats!;
  const names = p.a === p.b ? safe(p.a) : `${safe(p.a)} ↔ ${safe(p.b)} (paired by ${p.paired_by})`;
  const figures = [
    `events ${change(a.events, b.events)}`,
    `tool calls ${change(a.tool_calls, b.tool_calls)}`,
    `failed calls ${change(a.failed_calls, b.failed_calls)}`,
    ...(tokenDeltas(p.deltas) ? [`tokens ${tokenDeltas(p.deltas)}`] : []),
    `time ${timeChange(a, b, c.a.time_unit, c.b.time_unit)}`,
  ];
  const steps = [`${p.aligned.length.toLocaleString('en-US')} the same`, p.only_in_a ? `${p.only_in_a} only in A` : '', p.only_in_b ? `${p.only_in_b} only in B` : '', p.changed ? `${p.changed} changed` : '', p.moved ? `${p.moved} moved` : ''].filter(Boolean);
  return `${names}: ${figures.join(', ')}; steps ${steps.join(', ')}`;
}

/** `3 pairs`, `1 pair, 2 only in A, 1 only in B`. */
function agentCounts(c: RunComparison): string {
  const pairs = c.agents.filter((p) => p.a !== null && p.b !== null).length;
  const onlyA = c.agents.filter((p) => p.b === null).length;
  const onlyB = c.agents.filter((p) => p.a === null).length;
  return [countWords(pairs, 'pair'), onlyA ? `${onlyA} only in A` : '', onlyB ? `${onlyB} only in B` : ''].filter(Boolean).join(', ');
}


/** `12 → 15 (+3)`, `4 → 4`. */
function change(a: number, b: number): string {
  return a === b ? `${a.toLocaleString('en-US')} → ${b.toLocaleString('en-US')}` : `${a.toLocaleString('en-US')} → ${b.toLocaleString('en-US')} (${signed(b - a)})`;
}

function signed(n: number): string {
  return `${n > 0 ? '+' : n < 0 ? '−' : '±'}${Math.abs(n).toLocaleString('en-US', { maximumFractionDigits: 3 })}`;
}

const KIND_WORDS: Record<TokenKind, string> = { input: 'input', output: 'output', cache_read: 'cache read', cache_write: 'cache write', reasoning: 'reasoning' };

/** `input +1,234 · output −56`: the kinds that changed; `the same` when none did; '' when neither run recorded any. */
function tokenDeltas(d: LaneDeltas): string {
  const recorded = TOKEN_KINDS.filter((k) => d.tokens[k] !== null);
  if (recorded.length === 0) return '';
  const changed = recorded.filter((k) => d.tokens[k] !== 0);
  return changed.length === 0 ? 'the same' : changed.map((k) => `${KIND_WORDS[k]} ${signed(d.tokens[k]!)}`).join(' · ');
}

/** `1,234 input · 56 output`: the kinds recorded. */
function tokensOf(s: LaneStats): string {
  return TOKEN_KINDS.filter((k) => s.tokens[k] !== null).map((k) => `${s.tokens[k]!.toLocaleString('en-US')} ${KIND_WORDS[k]}`).join(' · ');
}

/**
 * `41 min 44 s → 5 min 11 s (−36 min 33 s)`: times as the graph says them (`3904.085 s` read as raw
 * data), steps counted; the change signed.
 */
function timeChange(a: LaneStats, b: LaneStats, ua: TimeUnit, ub: TimeUnit): string {
  const span = (t: number, u: TimeUnit) => (u === 'steps' ? formatSpan(t, u) : formatTimeSpent(t));
  if (ua !== ub) return `${span(a.time, ua)} → ${span(b.time, ub)}`;
  const delta = Math.round((b.time - a.time) * 1000) / 1000;
  if (a.time === b.time) return span(a.time, ua);
  const change = ua === 'steps' ? `${signed(delta)}${Math.abs(delta) === 1 ? ' step' : ' steps'}` : `${delta > 0 ? '+' : '−'}${span(Math.abs(delta), ua)}`;
  return `${span(a.time, ua)} → ${span(b.time, ub)} (${change})`;
}
