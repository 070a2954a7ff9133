/**
 * What the legend lists, in plain words: only what the graph of this trace shows (the event kinds,
 * arrows, cues, analysis marks and credit halo present; src/engine/graph-window.ts says which). An
 * event category and the arrow of the same name share one entry (one colour, one meaning). No DOM:
 * webview/legend.ts draws each entry's swatch.
 */
import type { GraphOverview } from '../src/shared/protocol';
import { EVENT_CUES } from '../src/shared/cues';
import { CATEGORIES } from './theme';

/** One legend entry: what it draws (`swatch`), its name and the sentence its tooltip says. */
export interface LegendEntry {
  /** What is drawn: an event category (with its kinds, and `arrow` when its arrow is drawn too), an arrow alone, a cue, a mark or the credit halo. */
  swatch: { category: string; kinds: string[]; arrow?: string } | { kind: string } | { arrow: string } | { link: true } | { cue: string } | { mark: string } | { halo: 'credit' | 'influence' };
  name: string;
  title: string;
}

/** Arrows between lanes, in plain words. */
const ARROW_WORDS: Record<string, string> = {
  spawn: 'an arrow: starts the agent of the lane it points to',
  delegate: 'an arrow: hands a task to the lane it points to',
  message: 'an arrow: a message to the lane it points to',
  return: 'an arrow: gives a result back to the lane it points to',
};

/** The event category an arrow type belongs to (same name, same colour). */
const ARROW_CATEGORY: Record<string, string> = { spawn: 'spawn', delegate: 'delegate', message: 'message', return: 'return' };

/** Event kinds drawn in the theme's neutral colour, outside the categories. */
const NEUTRAL_KINDS: Record<string, [string, string]> = {
  orchestrator_decision: ['decision', 'a decision of the orchestrator or the harness (e.g. the context was compacted)'],
  human_intervention: ['person stepped in', 'a person intervened in the run'],
};

/** Analysis marks (node borders), in plain words. */
const MARK_WORDS: Record<string, [string, string]> = {
  loop: ['repeated', 'dashed orange ring: the event is part of a loop, the same step done again and again'],
  blame: ['decisive error', 'red double ring: the step most likely to blame for the failure'],
  'stop-ok': ['succeeded ✓', 'green ring: a stop where the trace records that the task succeeded'],
  'stop-problem': ['stop problem ⚠', 'yellow double ring: the run stopped too early, too late or without finishing'],
};

/** Arrows the legend can name (the graph draws other edge types as plain grey lines). */
export const LEGEND_ARROWS = Object.keys(ARROW_WORDS);

/**
 * The legend's entries for a graph, in order: neutral kinds, categories (with their arrows), arrows
 * without a category present, the plain links between lanes, cues, marks, then the credit halo. Only what `graph` has.
 */
export function legendEntries(graph: Pick<GraphOverview, 'kinds' | 'legend'>): LegendEntry[] {
  const present = new Set(graph.kinds);
  const arrows = new Set(graph.legend.edgeTypes.filter((t) => t in ARROW_WORDS));
  const out: LegendEntry[] = [];
  for (const [kind, [name, title]] of Object.entries(NEUTRAL_KINDS)) if (present.has(kind)) out.push({ swatch: { kind }, name, title });
  const shownArrows = new Set<string>();
  for (const c of CATEGORIES) {
    const kinds = c.kinds.filter((k) => present.has(k));
    if (!kinds.length) continue;
    const arrow = Object.keys(ARROW_CATEGORY).find((a) => ARROW_CATEGORY[a] === c.name && arrows.has(a));
    if (arrow) shownArrows.add(arrow);
    const bars = c.name === 'tool call' && graph.legend.bars ? ' (a call and its result: one bar as long as the call took)' : '';
    // `stop / safety` with no safety event is `stop`: named by what is there
    const name = c.name.includes(' / ') ? kinds.map((k) => k.replace(/_/g, ' ')).join(' / ') : c.name;
    // the kinds it groups, unless they are its own name ("stop: stop" said nothing)
    const others = kinds.map((k) => k.replace(/_/g, ' ')).filter((k) => k !== name);
    out.push({ swatch: { category: c.name, kinds, ...(arrow ? { arrow } : {}) }, name, title: `${others.length ? `${name}: ${others.join(', ')}` : `${name} events`}${bars}${arrow ? `; ${ARROW_WORDS[arrow]}` : ''}` });
  }
  for (const a of LEGEND_ARROWS) if (arrows.has(a) && !shownArrows.has(a)) out.push({ swatch: { arrow: a }, name: `${a} →`, title: ARROW_WORDS[a] });
  // the other edges between lanes are plain grey lines: named too, with the types the trace gave them
  const plain = graph.legend.edgeTypes.filter((t) => !(t in ARROW_WORDS));
  if (plain.length) out.push({ swatch: { link: true }, name: 'link →', title: `a grey line: a link the trace records between events of two lanes (${plain.map((t) => t.replace(/_/g, ' ')).join(', ')}); not a hand-off` });
  const cues = new Set(graph.legend.cues);
  for (const [id, cue] of Object.entries(EVENT_CUES)) if (cues.has(id)) out.push({ swatch: { cue: id }, name: cue.label, title: `${cue.label}: ${cue.description}` });
  const marks = new Set(graph.legend.marks);
  for (const [mark, [name, title]] of Object.entries(MARK_WORDS)) if (marks.has(mark)) out.push({ swatch: { mark }, name, title });
  if (graph.legend.credit) {
    out.push(
      graph.legend.influence
        ? { swatch: { halo: 'influence' }, name: 'share of the result', title: 'green halo: stronger when more of what the run ended with built on the event (the trace records no outcome, so it is neither credit nor blame); the value is in the tooltip' }
        : { swatch: { halo: 'credit' }, name: 'credit', title: 'halo: green for credit towards the outcome, vermillion for blame, stronger for more; the value is in the tooltip' },
    );
  }
  return out;
}
