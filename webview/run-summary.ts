/**
 * The run at a glance, above the graph (issue 26): what was asked, how the run ended, who did
 * what, what it spent and what went wrong, in plain words. Everything from the trace is set with
 * textContent (trace text is untrusted) and clipped by {@link plainLabel}; the full task is one
 * click away (a `<details>`), and the end is a button that selects the stop event.
 */
import type { GraphRunBrief } from '../src/shared/protocol';
import { plainLabel } from '../src/shared/untrusted-text';
import { failedCallWords } from '../src/shared/failed-call-words';
import { lastWordsOf, noStopWords, stopReasonWords, turnEndWords } from '../src/shared/stop-words';
import { agentCountWords, compactionsIn } from '../src/shared/agent-words';
import { formatTimeSpent } from '../src/shared/duration-words';
import { stepRange } from '../src/shared/step-range';
import { countWords } from '../src/shared/count-words';
import { laterPromptsWords } from '../src/shared/prompt-words';

/** Characters of the task shown before it is folded. */
const TASK_SHOWN = 160;
/** Agents named on the line (the rest are counted; all are in its tooltip). */
const AGENTS_SHOWN = 4;

/** What selecting the end does (select the event; the caller gives the keyboard back to the graph). */
export interface RunSummaryActions {
  goTo(index: number): void;
}

/**
 * The words for how the run ended, e.g. `turn ended: handed back to the user`, `turn ended by an error`;
 * `spawnedBy`: the file is a sub-agent's own record (its turn hands back to the agent that spawned it).
 */
export function endedWords(ended: GraphRunBrief['ended'], spawnedBy?: string): string {
  if (!ended) return 'no stop recorded';
  if (!ended.recorded) return noStopWords(ended.unended, ended.duringCall);
  const reason = stopReasonWords(ended.scope, ended.reason);
  if (ended.scope === 'turn') {
    const words = turnEndWords(ended.reason);
    return spawnedBy !== undefined ? words.replace(/ to the user$/, ' to the agent that spawned it') : words;
  }
  if (ended.scope === 'phase') return `a phase ended (${reason})`;
  // the agent's claim, said as its claim: "run stopped: task complete" read as a verdict on a run whose email failed
  if (ended.reason === 'task_complete') return 'run stopped: the agent said the task is complete';
  return `run stopped: ${reason}`;
}

/**
 * Tokens in short form, e.g. `1.2M input · 30K output (4K of it reasoning) · 900K cache read`; '' when
 * no call recorded tokens. Reasoning tokens are part of the output (OpenAI's and Anthropic's usage
 * count them in it): said so, not listed beside it as if they added up (src/trace/tokens.ts `formatUsage`).
 */
export function tokenWords(tokens: GraphRunBrief['tokens']): string {
  const short = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
  const parts: string[] = [];
  const reasoning = tokens.reasoning !== null && tokens.reasoning > 0 ? tokens.reasoning : undefined;
  for (const [kind, words] of [['input', 'input'], ['output', 'output'], ['cache_read', 'cache read'], ['cache_write', 'cache write']] as const) {
    const n = tokens[kind];
    if (n !== null && n > 0) parts.push(`${short.format(n)} ${words}${kind === 'output' && reasoning !== undefined ? ` (${short.format(reasoning)} of it reasoning)` : ''}`);
  }
  // reasoning recorded without the output it is part of
  if (reasoning !== undefined && !(tokens.output !== null && tokens.output > 0)) parts.push(`${short.format(reasoning)} reasoning`);
  return parts.length ? `${parts.join(' · ')} tokens` : '';
}

/**
 * The Spent line: the run's time, or on a step clock the steps it runs over (`steps 0–9`: "9 steps"
 * read as a count of the 10 records of steps 0 to 9), then its tokens ({@link spentTokens}).
 */
export function spentWords(run: Pick<GraphRunBrief, 'duration' | 'tokens' | 'eventTokens'> & { ended?: GraphRunBrief['ended'] }): string {
  const { value, unit, from } = run.duration;
  // a file cut off inside a record holds part of the run: its figures are that part's, not the run's totals
  const part = run.ended?.unended === 'cut off' ? ' · of the part of the run the file holds (it is cut off)' : '';
  const time = unit === 'steps' ? stepRange(from, value) : formatTimeSpent(value);
  return `${time} · ${spentTokens(run)}${part}`;
}

/** The tokens of the Spent line: by kind; else the events' own counts (no kind recorded); else that the trace has none. */
export function spentTokens(run: Pick<GraphRunBrief, 'tokens' | 'eventTokens'>): string {
  const byKind = tokenWords(run.tokens);
  if (byKind) return byKind;
  if (run.eventTokens !== null && run.eventTokens > 0) return `${run.eventTokens.toLocaleString('en-US')} tokens (no kind recorded)`;
  return 'no token counts in the trace';
}

/** One agent as named on the line: what it was asked to be (its label), else its lane name. */
function agentName(a: GraphRunBrief['agents'][number]): string {
  return plainLabel(a.label ?? a.name, 60);
}

/**
 * The agents line, e.g. `3 agents: main (512 events) · Explore: find the config (80) · 2 more`, or
 * `3 agents · 1 context compaction: …` when a listed lane is a compaction (it summarises a lane's
 * context: no agent of the run); `total`: the run's lanes when more than listed.
 */
export function agentWords(agents: GraphRunBrief['agents'], total = agents.length, spawnedBy?: string): string {
  if (agents.length === 0) return 'no agent events';
  // a sub-agent's own record opened alone: said first, its parent's file holds the whole run (it read as a run of its own)
  if (total === 1 && spawnedBy !== undefined) return `one agent, ${agentName(agents[0])} (${countWords(agents[0].events, 'event')}): a sub-agent of ${plainLabel(spawnedBy, 80)}, whose file holds the whole run`;
  if (total === 1) return `one agent, ${agentName(agents[0])} (${countWords(agents[0].events, 'event')})`;
  const shown = agents.slice(0, AGENTS_SHOWN).map((a, i) => `${agentName(a)} (${i === 0 ? countWords(a.events, 'event') : a.events.toLocaleString('en-US')})`);
  const more = total - shown.length;
  // the lanes not listed are counted as agents (their labels are not sent)
  const count = agentCountWords(total, compactionsIn(agents.map((a) => a.label)));
  return `${count}: ${shown.join(' · ')}${more > 0 ? ` · ${more.toLocaleString('en-US')} more` : ''}`;
}

function row(key: string): { row: HTMLElement; value: HTMLElement } {
  const r = document.createElement('div');
  r.className = 'run-row';
  r.dataset.key = key; // (a short panel shows the rows that say what was asked and how it ended: styles.css)
  const k = document.createElement('span');
  k.className = 'run-key';
  k.textContent = key;
  const v = document.createElement('span');
  v.className = 'run-value';
  r.append(k, v);
  return { row: r, value: v };
}

/**
 * The words for a run the analysis found nothing wrong with: said of the run, so that warnings
 * about reading the file (`reading`, the overview's problem counts) do not read as a contradiction.
 */
export function noProblemWords(reading: { errors: number; warnings: number }): string {
  const n = reading.errors + reading.warnings;
  if (n === 0) return 'no problems found in the run';
  const what = reading.errors ? `${n} ${n === 1 ? 'problem' : 'problems'}` : `${n} ${n === 1 ? 'warning' : 'warnings'}`;
  return `no problems found in the run (${what} reading the file: see Problems)`;
}

/**
 * The Problems row's words and tone: the most severe finding (and how many more), else the calls
 * whose results record a failure (a fact of the trace: never hidden behind "no problems found"),
 * else {@link noProblemWords}. Trace text in it is made plain (untrusted).
 */
export function problemWords(run: Pick<GraphRunBrief, 'findings' | 'findingCount' | 'failedCalls'> & { agents?: readonly unknown[] }, reading: { errors: number; warnings: number }): { text: string; tone: 'ok' | 'error' | 'warning' | 'info' } {
  const failed = run.failedCalls;
  const calls = failed ? failedCallWords(failed.count) : '';
  if (run.findings.length > 0) {
    const top = run.findings[0];
    // all of them: the list below shows every finding, the summary holds the first five
    const count = Math.max(run.findingCount ?? 0, run.findings.length);
    const more = count > 1 ? ` (and ${count - 1} more, listed below)` : '';
    return { text: `${top.severity === 'error' ? '✖' : top.severity === 'warning' ? '⚠' : 'ℹ'} ${plainLabel(top.message, 200)}${more}${calls ? ` · ${calls}` : ''}`, tone: top.severity };
  }
  if (failed) return { text: `⚠ no finding, but ${calls}; the first: ${plainLabel(failed.tool, 60)}: ${plainLabel(failed.error, 140)}`, tone: 'warning' };
  // no event, no run to find anything in: never a green "no problems" (an empty file said so beside its reading error)
  if (run.agents?.length === 0) return { text: `nothing to judge: the trace has no events${reading.errors + reading.warnings ? ' (see Problems)' : ''}`, tone: 'info' };
  return { text: noProblemWords(reading), tone: 'ok' };
}

/**
 * The words of the Ended row's link to the stop (or the last event): {@link endedWords}, but "the
 * last event" for a file still being written with no stop yet (the row says "not yet: still being
 * written" first: the stop's own words said it again).
 */
export function endedLinkWords(ended: NonNullable<GraphRunBrief['ended']>, growing: boolean, spawnedBy?: string): string {
  return growing && !ended.recorded && ended.unended === 'in progress' ? 'the last event' : endedWords(ended, spawnedBy);
}

/**
 * What comes before the quoted words of the end: nothing for a stop's own words; for a file that
 * records no stop, whose last words they are ("explorer's last words: ": a sub-agent that spoke last
 * while the main agent waited is not the run; "its last words: " when no speaker is known).
 */
export function lastWordsLead(ended: NonNullable<GraphRunBrief['ended']>): string {
  if (ended.recorded) return '';
  return ended.speaker === undefined ? 'its last words: ' : `${lastWordsOf(ended.speaker, (t) => plainLabel(t, 60))}: `;
}

/** What the Ended row says first of a run whose file is still being written: its outcome and last stop are only those so far. */
export const STILL_WRITTEN = noStopWords('in progress');

/**
 * How the Ended row of a run still being written starts, and what comes between that and the rest: "so far:"
 * before a recorded outcome or stop, which then follows at once (a narrow panel cut it off after "not yet: still
 * being written · so far:"); else "not yet: still being written" and, before the link to the last event, " · ".
 */
export function stillWrittenLead(run: Pick<GraphRunBrief, 'outcome' | 'ended'>): { lead: string; then: string } {
  if (run.outcome || run.ended?.recorded) return { lead: 'so far:', then: ' ' };
  return { lead: STILL_WRITTEN, then: run.ended ? ' · ' : '' };
}

/**
 * Fills `el` with the run summary (hidden when there is none); `reading`: the overview's counts of
 * problems reading the file; `growing`: the file is being written (the run has not ended: its
 * outcome and last stop are said as "so far").
 */
export function showRunSummary(el: HTMLElement, run: GraphRunBrief | undefined, reading: { errors: number; warnings: number }, actions: RunSummaryActions, growing = false): void {
  el.replaceChildren();
  el.hidden = !run;
  if (!run) return;

  const asked = row('Asked');
  const task = run.task === '' ? 'no task or user prompt in the trace' : plainLabel(run.task, 4000);
  if (task.length > TASK_SHOWN) {
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = plainLabel(run.task, TASK_SHOWN);
    const full = document.createElement('div');
    full.className = 'run-task-full';
    full.textContent = task;
    details.append(summary, full);
    asked.value.append(details);
  } else asked.value.textContent = task;
  if (run.task === '') asked.value.classList.add('run-none');
  // one line cut at the panel's width: the whole of it on hover (as every row)
  asked.value.title = task;
  if (run.laterPrompts) {
    // a session the user went on with: its later prompts asked for much of its work
    const later = document.createElement('div');
    later.className = 'run-later-prompts';
    later.textContent = laterPromptsWords(run.laterPrompts, (t) => plainLabel(t, TASK_SHOWN));
    later.title = laterPromptsWords(run.laterPrompts, (t) => plainLabel(t, 4000));
    asked.value.append(later);
  }

  const ended = row('Ended');
  if (growing) {
    const live = document.createElement('span');
    live.className = 'run-growing';
    const { lead, then } = stillWrittenLead(run);
    live.textContent = lead;
    ended.value.append(live, then);
  }
  // A recorded outcome comes first: it is the answer to "how did it end" that a stop reason is not.
  if (run.outcome) {
    const outcome = document.createElement('span');
    outcome.className = `run-outcome run-outcome-${run.outcome.status}`;
    outcome.textContent = `${run.outcome.status} (${plainLabel(run.outcome.source, 80)})`;
    outcome.title = 'The outcome the trace records';
    ended.value.append(outcome, ' · ');
  }
  if (run.ended) {
    const stop = run.ended;
    const go = document.createElement('button');
    go.className = 'run-link';
    go.textContent = endedLinkWords(stop, growing, run.spawnedBy);
    go.title = stop.recorded ? 'Select the stop event' : 'Select the last event';
    go.addEventListener('click', () => actions.goTo(stop.index));
    ended.value.append(go);
    if (stop.text) ended.value.append(` · ${lastWordsLead(stop)}“${plainLabel(stop.text, 140)}”`);
  } else if (!growing) ended.value.append(endedWords(null));
  // one line per question, cut at the panel's width: the whole of it on hover
  ended.value.title = ended.value.textContent ?? '';

  const who = row('Who');
  who.value.textContent = agentWords(run.agents, run.agentCount, run.spawnedBy);
  who.value.title = run.agents.map((a) => `${plainLabel(a.name, 80)}${a.label ? ` — ${plainLabel(a.label, 80)}` : ''}: ${countWords(a.events, 'event')}${a.task ? `; asked: ${plainLabel(a.task, 200)}` : ''}`).join('\n') + (run.agentCount ? `\n… the ${run.agents.length} busiest of ${run.agentCount.toLocaleString('en-US')} agents` : '');

  const spent = row('Spent');
  const steps = run.duration.unit === 'steps';
  spent.value.textContent = spentWords(run);
  // the player's "t =" counts from the trace's start (a session opened before its first prompt): say which span this is
  spent.value.title = steps
    ? 'The steps of the first and the last event (the trace has no clock: it numbers its records).'
    : 'Time from the first event\'s start to the last event\'s end (the player\'s clock counts from the trace\'s start).';

  const problems = row('Problems');
  const said = problemWords(run, reading);
  problems.value.textContent = said.text;
  problems.value.title = said.text;
  problems.row.classList.add(`run-${said.tone}`);
  const failed = run.failedCalls;
  if (failed && failed.index >= 0) {
    // the first failed call, one click away (as the stop is in the Ended row)
    const go = document.createElement('button');
    go.className = 'run-link';
    go.textContent = 'show the first';
    go.title = 'Select the result of the first call that failed';
    go.addEventListener('click', () => actions.goTo(failed.index));
    problems.value.append(' · ', go);
  }
  el.append(asked.row, ended.row, ...labelledRow(run), who.row, spent.row, problems.row);
}

/** The Labelled row, when the file records labels (a benchmark's ground truth): each beside otrace's verdict, one line, the whole on hover. */
function labelledRow(run: GraphRunBrief): HTMLElement[] {
  if (!run.labelled?.length) return [];
  const labelled = row('Labelled');
  labelled.value.textContent = labelledWords(run.labelled);
  labelled.value.title = run.labelled.map((l) => plainLabel(l, 400)).join('\n');
  return [labelled.row];
}

/** The Labelled row's words: the file's labels, each beside otrace's verdict, made plain (untrusted trace text). */
export function labelledWords(labelled: readonly string[]): string {
  return labelled.map((l) => plainLabel(l, 200)).join(' · ');
}
