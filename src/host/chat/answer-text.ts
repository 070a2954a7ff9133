/**
 * The facts of otrace's tools (src/engine/chat-tools.ts) as the `@otrace` chat participant writes
 * them: short Markdown whose every trace string (task, message, agent, id, path) is escaped, and
 * whose events are command links with one number each (the participant's own id of a cited event,
 * see citations.ts), never a trace string. Pure: no `vscode`; the participant makes it a
 * MarkdownString trusted for that one command.
 */
import type { CitedEvent } from '../../engine/chat-tool-names';
import { escapeMarkdown, joinMarkdown, markdownText, type MarkdownText } from '../../shared/untrusted-text';
import { endedWords, lastWordsOf, noStopWords } from '../../shared/stop-words';
import { laterPromptsWords, type LaterPrompts } from '../../shared/prompt-words';

/** The command a cited event's link runs, with the event's number as its only argument. */
export const SHOW_CITED_EVENT = 'otrace.chat.showEvent';

/** An event as the tools cite it: the engine's own type (chat-tool-names.ts), not a copy. */
export type CitedEventFacts = CitedEvent;

/** Gives a cited event of the trace at `tracePath` its number for a link. */
export type Cite = (tracePath: string, event: CitedEventFacts) => number;

/** Characters of a message or task shown. */
const SHOWN = 600;

/** `text` cut to `max` characters (the cut marked), then escaped. */
function shown(text: unknown, max = SHOWN): MarkdownText {
  const s = typeof text === 'string' ? text : text === null || text === undefined ? '' : String(text);
  return escapeMarkdown(s.length > max ? `${s.slice(0, max - 1)}…` : s) as MarkdownText;
}

/** A link selecting one event in the graph and the text: `[e12 · researcher return, line 13]`. */
export function eventLink(cite: Cite, tracePath: string, e: CitedEventFacts | null | undefined): MarkdownText {
  if (!e) return markdownText`no event`;
  const label = `${e.id} · ${e.agent} ${e.type}${e.line !== null ? `, line ${e.line}` : ''}`;
  const args = encodeURIComponent(JSON.stringify([cite(tracePath, e)]));
  return `[${escapeMarkdown(label)}](command:${SHOW_CITED_EVENT}?${args})` as MarkdownText;
}

/** The evidence events of a finding as links (the first `max`), with how many there are in all. */
function evidenceLinks(cite: Cite, tracePath: string, events: CitedEventFacts[], count: number, max = 8): MarkdownText {
  const links = joinMarkdown(events.slice(0, max).map((e) => eventLink(cite, tracePath, e)), ', ');
  return count > Math.min(max, events.length) ? (`${links} … (${count} events in all)` as MarkdownText) : links;
}

type Facts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the tools' JSON, read field by field

/** One finding with its message and evidence (`/explain`). */
export function findingMarkdown(cite: Cite, tracePath: string, f: Facts): MarkdownText {
  const verdict = f.mode && f.mode !== 'ok' ? markdownText` (${String(f.mode).replace('_', ' ')})` : f.mode === 'ok' ? markdownText` (no failure found)` : '';
  const confidence = f.confidence ? markdownText`, ${f.confidence} confidence` : '';
  return joinMarkdown(
    [
      `**Finding ${Number(f.number)}: ${shown(String(f.kind).replace('_', ' '))}${verdict}**, ${shown(f.severity)}${confidence}` as MarkdownText,
      shown(f.message),
      `Evidence: ${evidenceLinks(cite, tracePath, f.evidence ?? [], Number(f.evidence_count) || 0)}` as MarkdownText,
    ],
    '\n\n',
  );
}

/** The run at a glance and its problems (`@otrace` without a command). */
export function summaryMarkdown(cite: Cite, summaryFacts: Facts, findingsFacts: Facts | undefined): MarkdownText {
  const trace = summaryFacts.trace as Facts;
  const s = summaryFacts.summary as Facts | null;
  const parts: MarkdownText[] = [markdownText`**Run** ${trace.path} (${trace.format}, ${Number(trace.events)} events, ${Number(trace.agents)} agents)`];
  if (s) {
    parts.push(s.task ? (`Task: ${shown(s.task)}` as MarkdownText) : markdownText`Task: not found`);
    const later = s.later_prompts as LaterPrompts | undefined;
    // the words are escaped as they are put in (shown), the rest is ours
    if (later && typeof later.count === 'number' && typeof later.last === 'string') parts.push(laterPromptsWords(later, (t) => shown(t)) as MarkdownText);
    parts.push(endedMarkdown(cite, trace.path, s.ended, summaryFacts.stop_event));
    parts.push(s.outcome ? markdownText`Outcome: ${s.outcome.status} (${s.outcome.source})` : markdownText`Outcome: not recorded`);
  }
  const problems = (findingsFacts?.findings ?? []) as Facts[];
  parts.push(problems.length ? markdownText`Problems (${Number(findingsFacts!.total)}):` : markdownText`No problems found.`);
  for (const f of problems.slice(0, 5)) parts.push(`- ${markdownText`${f.kind} ${f.severity}: `}${shown(f.message, 300)} (${eventLink(cite, trace.path, f.event)}; \`/explain ${Number(f.number)}\`)` as MarkdownText);
  return joinMarkdown(parts, '\n\n');
}

/** How the run ended: its last stop, reason and final words, linked. */
function endedMarkdown(cite: Cite, tracePath: string, ended: Facts | null, stop: CitedEventFacts | null): MarkdownText {
  if (!ended) return markdownText`Ended: no events`;
  const how = !ended.recorded ? markdownText`${noStopWords(ended.unended === 'cut off' || ended.unended === 'in progress' ? ended.unended : undefined, ended.duringCall === true)}` : markdownText`${endedWords(ended.scope, ended.reason)}`;
  const whose = !ended.recorded && typeof ended.speaker === 'string' ? `${lastWordsOf(ended.speaker, (t) => shown(t, 60))}: ` : '';
  const words = ended.text ? (` — ${whose}${shown(ended.text, 300)}` as MarkdownText) : '';
  return `Ended: ${how} at ${eventLink(cite, tracePath, stop)}${words}` as MarkdownText;
}

/** Why the run stopped (`/why-stopped`): how it ended, then each stop finding with its verdict and evidence. */
export function whyStoppedMarkdown(cite: Cite, summaryFacts: Facts, stopFacts: Facts): MarkdownText {
  const trace = summaryFacts.trace as Facts;
  const s = summaryFacts.summary as Facts | null;
  const parts: MarkdownText[] = [s ? endedMarkdown(cite, trace.path, s.ended, summaryFacts.stop_event) : markdownText`The analysis failed: no stop verdict.`];
  if (s) parts.push(s.outcome ? markdownText`Outcome: ${s.outcome.status} (${s.outcome.source})` : markdownText`Outcome: not recorded, so "sound" cannot be said of a stop.`);
  const stops = (stopFacts.findings ?? []) as Facts[];
  // the run's own stops first: a verdict about the task is theirs
  const ordered = [...stops.filter((f) => f.scope === 'run'), ...stops.filter((f) => f.scope !== 'run')];
  if (!ordered.length) parts.push(markdownText`otrace found no stop to judge.`);
  for (const f of ordered.slice(0, 4)) parts.push(findingMarkdown(cite, trace.path, f));
  if (ordered.length > 4) parts.push(markdownText`… and ${ordered.length - 4} more stops (otrace_findings with kind "stop" lists them).`);
  return joinMarkdown(parts, '\n\n');
}

/** Two runs compared (`/compare`): first divergence, how each ended, the step counts, the findings one run has alone. */
export function compareMarkdown(cite: Cite, c: Facts): MarkdownText {
  const pathA = c.a.trace.path as string;
  const pathB = c.b.trace.path as string;
  const ended = (side: Facts) => (side.ended ? markdownText`${endedWords(side.ended.scope, side.ended.reason)}` : markdownText`no events`);
  const outcome = (side: Facts) => (side.outcome ? markdownText`${side.outcome.status}` : markdownText`not recorded`);
  const d = c.first_divergence as Facts | null;
  const parts: MarkdownText[] = [
    markdownText`**A** ${pathA} (${c.a.format}, ${Number(c.a.events)} events) · **B** ${pathB} (${c.b.format}, ${Number(c.b.events)} events)`,
    d
      ? (`First divergence (${shown(String(d.kind).replace(/_/g, ' '))}): A ${d.a ? eventLink(cite, pathA, d.a) : markdownText`nothing`}, B ${d.b ? eventLink(cite, pathB, d.b) : markdownText`nothing`}` as MarkdownText)
      : markdownText`No divergence: the runs do the same steps.`,
    `Ended: A ${ended(c.a)}, outcome ${outcome(c.a)} · B ${ended(c.b)}, outcome ${outcome(c.b)}` as MarkdownText,
    markdownText`Steps: ${Number(c.steps.same)} the same, ${Number(c.steps.only_in_a)} only in A, ${Number(c.steps.only_in_b)} only in B, ${Number(c.steps.changed)} changed, ${Number(c.steps.moved)} moved`,
  ];
  for (const [which, side, p] of [['A', c.findings.only_in_a, pathA], ['B', c.findings.only_in_b, pathB]] as const) {
    const list = (side.findings ?? []) as Facts[];
    parts.push(list.length ? (`Findings only in ${which} (${Number(side.total)}):` as MarkdownText) : (`No finding only in ${which}.` as MarkdownText));
    for (const f of list.slice(0, 5)) parts.push(`- ${shown(f.kind)} ${shown(f.severity)}: ${shown(f.message, 300)} (${eventLink(cite, p, f.event)})` as MarkdownText);
  }
  return joinMarkdown(parts, '\n\n');
}

/**
 * Text a model wrote, as plain text in Markdown: its own Markdown is not rendered (a trace it read
 * may have put a link or an image in it), each line escaped and kept a line.
 */
export function modelTextMarkdown(text: string): MarkdownText {
  return text
    .split('\n')
    .map((line) => escapeMarkdown(line))
    .join('  \n') as MarkdownText;
}
