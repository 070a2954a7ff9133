/**
 * The analysis findings as a person reads them: grouped by kind with counts
 * (`Repeated tool calls (27) ▸`), most severe and most wasteful groups first, folded until
 * opened. A sound stop is not listed (its node carries a ✓). Opening a group frames all its
 * events; a finding frames its own. Trace text is set with textContent only.
 */
import { megabytes, readStage } from '../src/shared/part-words';
import type { GraphFinding, GraphOverview } from '../src/shared/protocol';
import { plainLabel } from '../src/shared/untrusted-text';
import { countWords } from '../src/shared/count-words';

/** A group of findings of one kind, in the order shown. */
export interface FindingGroup {
  key: string;
  title: string;
  severity: GraphFinding['severity'];
  /** Indices into `GraphModel.findings`. */
  members: number[];
  /** Tokens spent on the group's events (its waste). */
  tokens: number;
}

const SEVERITY_RANK = { error: 0, warning: 1, info: 2 } as const;
const SEVERITY_ICON = { error: '✖', warning: '⚠', info: 'ℹ' } as const;

/** The plain-words name of a finding's group, or undefined for findings not listed (sound stops). */
export function groupOf(f: GraphFinding & { loop?: unknown }): { key: string; title: string } | undefined {
  switch (f.kind) {
    case 'stop':
      if (f.mode === 'ok') return undefined;
      if (f.mode === 'premature') return { key: 'stop-premature', title: 'Stopped too early' };
      if (f.mode === 'delayed') return { key: 'stop-delayed', title: 'Kept going after the task was done' };
      // A stop event that did not end the work (a loop still going, a limit hit before any conclusion) is not "never stopped".
      if (f.mode === 'no_stop') return f.inline.startsWith('■ no stop') ? { key: 'stop-none', title: 'Never stopped' } : { key: 'stop-unfinished', title: 'Stopped without finishing' };
      return { key: `stop-${f.mode ?? 'other'}`, title: 'Stop problems' };
    case 'loop':
      return /repeated_tool_call|called \d+ times/.test(f.message) ? { key: 'loop-tool', title: 'Repeated tool calls' } : /ping/i.test(f.message) ? { key: 'loop-pingpong', title: 'Delegation ping-pong' } : { key: 'loop-seq', title: 'Repeated sequences' };
    case 'blame':
      return { key: 'blame', title: 'Decisive error' };
    case 'verification':
      return { key: 'verification', title: 'Verification failures' };
    case 'best_stop':
      return { key: 'best-stop', title: 'Could have stopped earlier' };
    default:
      return { key: f.kind, title: f.kind.replace(/_/g, ' ') };
  }
}

/** Groups findings by kind, most severe first, then by waste (tokens), then by size. */
export function groupFindings(findings: GraphFinding[]): FindingGroup[] {
  const groups = new Map<string, FindingGroup>();
  findings.forEach((f, i) => {
    const g = groupOf(f);
    if (!g) return;
    const group = groups.get(g.key) ?? { ...g, severity: f.severity, members: [], tokens: 0 };
    group.members.push(i);
    if (!f.overlaps) group.tokens += f.tokens ?? 0; // overlapping waste is counted once
    if (SEVERITY_RANK[f.severity] < SEVERITY_RANK[group.severity]) group.severity = f.severity;
    groups.set(g.key, group);
  });
  for (const g of groups.values()) g.members.sort((a, b) => (findings[b].tokens ?? 0) - (findings[a].tokens ?? 0) || a - b);
  return [...groups.values()].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || b.tokens - a.tokens || b.members.length - a.members.length);
}

/**
 * What the overview says of the analysis, which decides what the findings list shows; `growing`: the
 * trace is being written (each append is read, then analysed: the list keeps the room of its
 * "analysing the newest events…" line between the two, so that the graph under it does not move twice an append).
 */
export type FindingsState = Pick<GraphOverview, 'analysing' | 'analysedEvents' | 'reading' | 'notAnalysed'> & { growing?: boolean };

/** What the list calls back: frame events (by index) of a group or a finding. */
export interface FindingActions {
  frame(events: number[], finding?: number): void;
}

/**
 * Fills `list` with the grouped findings; with `analysing` (the analysis still runs), a quiet
 * "analysing…" where they will be, or after the last analysis's findings while lines appended to
 * the trace are analysed (`analysedEvents`: how many events those findings are of); with `reading`
 * (a large file read in parts), how much of the file the graph shows; with `notAnalysed`, why there are no findings.
 */
export function showFindings(list: HTMLElement, findings: GraphFinding[], actions: FindingActions, state: FindingsState = {}): void {
  const instead = noteInstead(state);
  if (instead) {
    list.replaceChildren(analysingNote(instead.text, instead.title));
    list.hidden = false;
    return;
  }
  const analysing = state.analysing === true;
  const { analysedEvents } = state;
  const groups = groupFindings(findings);
  list.replaceChildren(
    ...groups.map((g) => {
      const box = document.createElement('div');
      box.className = `finding-group ${g.severity}`;
      box.dataset.group = g.key;
      const head = document.createElement('button');
      head.className = 'group-head';
      head.setAttribute('aria-expanded', 'false');
      const waste = g.tokens > 0 ? ` · ${formatTokens(g.tokens)} tokens` : '';
      const label = () => `${SEVERITY_ICON[g.severity]} ${g.title} (${g.members.length}) ${box.classList.contains('open') ? '▾' : '▸'}`;
      head.textContent = label();
      const count = `${g.members.length} ${g.members.length === 1 ? 'finding' : 'findings'}`;
      head.title = `${count}${g.tokens > 0 ? `, ${g.tokens.toLocaleString('en-US')} tokens spent on the repeated or extra work they name` : ''}: click to list them and show all their events`;
      const items = document.createElement('div');
      items.className = 'group-items';
      items.hidden = true;
      items.append(
        ...g.members.map((i) => {
          const f = findings[i];
          const item = document.createElement('button');
          item.className = `finding ${f.severity}`;
          item.dataset.finding = String(i);
          item.textContent = plainLabel(f.message); // untrusted text: textContent only, controls shown; its waste in tokens is in the message
          item.title = `${countWords(f.events.length, 'event')}: click to show them (Esc goes back)`;
          item.addEventListener('click', () => actions.frame(f.events, i));
          return item;
        }),
      );
      head.addEventListener('click', () => {
        const open = !box.classList.contains('open');
        box.classList.toggle('open', open);
        items.hidden = !open;
        head.setAttribute('aria-expanded', String(open));
        head.textContent = label();
        if (open) actions.frame([...new Set(g.members.flatMap((i) => findings[i].events))]);
      });
      const summary = document.createElement('span');
      summary.className = 'group-waste';
      summary.textContent = waste ? `${waste.slice(3)} wasted` : '';
      summary.title = head.title;
      box.append(head, summary, items);
      return box;
    }),
  );
  if (analysing) {
    const shown = (analysedEvents ?? 0).toLocaleString('en-US');
    list.append(analysingNote('analysing the newest events…', `These findings are of the first ${shown} events; the events appended since are being analysed, and the findings, marks and credit of the whole trace replace these when that ends.`));
  } else if (state.growing) {
    // its room kept, empty, until the next append is analysed
    const room = analysingNote('analysing the newest events…', '');
    room.classList.add('idle');
    room.removeAttribute('role');
    room.setAttribute('aria-hidden', 'true');
    list.append(room);
  }
  list.hidden = groups.length === 0 && !analysing && !state.growing;
}

/** What the findings list says instead of findings (`text`, and `title`: what it means, on hover), or undefined when it lists findings. */
export function noteInstead(state: FindingsState): { text: string; title: string } | undefined {
  const { reading, notAnalysed } = state;
  // a large file's first part drawn while the rest is read (or where its read was cancelled)
  if (reading) return readingNote(reading);
  // no findings because there was no analysis: said, so that the trace does not look clean
  if (notAnalysed !== undefined)
    return {
      text: `not analysed: ${plainLabel(notAnalysed)}`,
      title: 'The analysis of this trace failed or was cancelled: the graph shows its events without findings, stops, loops or credit. Reopening the file analyses it again.',
    };
  // a large trace drawn as read: its findings come with the analysis (the next overview)
  if (state.analysing && state.analysedEvents === undefined)
    return {
      text: 'analysing… (findings, stops, loops and credit follow)',
      title: 'The graph shows the trace as read; the analysis runs in the background and its marks appear here and on the nodes when it ends.',
    };
  return undefined;
}

/** What the findings list says of a large file's first part, by where the read of the rest stands (part-words.ts `readStage`). */
function readingNote(reading: NonNullable<FindingsState['reading']>): { text: string; title: string } {
  const shown = `the first ${megabytes(reading.bytes)} MB`;
  const title = 'The file is large: the graph shows the events of its first part while the rest is read; the whole trace and then its analysis replace it.';
  switch (readStage(reading)) {
    case 'stopped':
      return {
        text: `read stopped: ${shown} of ${megabytes(reading.of)} MB shown, not analysed`,
        title: 'The read of this large file was cancelled or failed: the graph shows the events of its first part, without findings; its next load reads on.',
      };
    case 'started':
      return { text: `reading… ${shown} of ${megabytes(reading.of)} MB shown (the rest, then findings, stops, loops and credit follow)`, title };
    case 'going':
      return { text: `reading… ${megabytes(reading.read!)} of ${megabytes(reading.of)} MB read, ${shown} shown (then findings, stops, loops and credit)`, title };
    case 'done':
      return { text: `read: all ${megabytes(reading.of)} MB, ${shown} shown (the whole trace next, then findings, stops, loops and credit)`, title };
  }
}

/** The quiet status line that says the analysis runs (`title`: what it means, on hover). */
function analysingNote(text: string, title: string): HTMLElement {
  const note = document.createElement('span');
  note.className = 'analysing';
  note.setAttribute('role', 'status');
  note.textContent = text;
  note.title = title;
  return note;
}

function formatTokens(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${Math.round(n / 1e3)}k` : String(n);
}
