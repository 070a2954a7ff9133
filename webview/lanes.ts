/**
 * The lane column beside the graph (never over it): one name per agent lane, indented under the
 * agent that spawned it, with a fold toggle on lanes that have sub-agent lanes. Names follow the
 * graph's vertical scroll. Trace text (agent names) is set with textContent only, control and bidi
 * characters shown as `⟨U+202E⟩`.
 */
import { plainLabel } from '../src/shared/untrusted-text';
import type { GraphLane } from '../src/shared/protocol';
import type { TraceGraph } from './graph';
import { countWords } from '../src/shared/count-words';

/** Fills `column` with the lane names of `graph` and keeps them aligned with it. */
export function createLaneColumn(column: HTMLElement, graph: TraceGraph): () => void {
  const lanes = graph.graph.lanes;
  const hasChildren = new Set(lanes.map((l) => l.parent).filter((p): p is string => !!p));
  const rows = lanes.map((lane, i) => {
    const row = document.createElement('div');
    row.className = 'lane';
    row.dataset.lane = lane.name;
    // Several traces in the file: the first lane of each trace's group starts with the trace's id.
    const groupStart = lane.trace !== undefined && lanes[i - 1]?.trace !== lane.trace;
    if (groupStart) {
      row.classList.add('group-start');
      row.dataset.trace = lane.trace;
    }
    row.style.paddingLeft = `${4 + lane.depth * 12}px`;
    if (hasChildren.has(lane.name)) {
      const fold = document.createElement('button');
      fold.className = 'fold';
      fold.title = 'Fold or unfold the lanes of the agents it spawned';
      fold.setAttribute('aria-label', `Fold the sub-agent lanes of ${plainLabel(lane.name)}`); // the ▾ glyph says nothing to a screen reader
      fold.setAttribute('aria-expanded', 'true');
      fold.textContent = '▾';
      fold.addEventListener('click', () => graph.toggleLane(lane.name));
      row.append(fold);
    } else if (lane.depth > 0) {
      const elbow = document.createElement('span');
      elbow.className = 'elbow';
      elbow.textContent = '└';
      row.append(elbow);
    }
    const name = document.createElement('span');
    name.className = 'lane-name';
    name.textContent = shownName(lane); // untrusted trace text: never innerHTML
    const more = document.createElement('span');
    more.className = 'lane-more';
    if (groupStart) {
      const tag = document.createElement('span');
      tag.className = 'lane-trace';
      tag.textContent = plainLabel(lane.trace!.slice(0, 8)); // untrusted trace text: never innerHTML
      row.append(tag);
    }
    row.append(name, more);
    // the engine's words (the raw name, what it was asked, who spawned it or whose context it compacts), else the name and count
    row.title = `${lane.tip ?? `${plainLabel(lane.name)}: ${countWords(lane.count, 'event')}${lane.parent ? `, spawned by ${plainLabel(lane.parent)}` : ''}`}${lane.trace === undefined ? '' : ` (trace ${plainLabel(lane.trace)})`}`;
    return row;
  });
  column.replaceChildren(...rows);
  // The column is as wide as the longest name needs (indent and fold included), within 100..240 px
  // and at most 30% of the graph's width: the stylesheet takes that share as the panel's width
  // changes (measured here once, it kept a wide panel's column in a narrowed one).
  const measure = document.createElement('canvas').getContext('2d');
  if (measure) {
    measure.font = `12px ${getComputedStyle(document.body).fontFamily || 'sans-serif'}`;
    const need = Math.max(0, ...lanes.map((l) => 4 + l.depth * 12 + 16 + measure.measureText(shownName(l)).width + 10 + (l.trace === undefined ? 0 : 60)));
    column.parentElement?.style.setProperty('--lane-column', `${Math.round(Math.max(100, Math.min(240, need)))}px`);
  }
  const place = () => {
    const height = column.clientHeight;
    lanes.forEach((_, i) => {
      const el = rows[i];
      const box = graph.laneBox(i);
      const fold = el.querySelector('.fold');
      if (fold) {
        const open = !graph.collapsed.has(lanes[i].name);
        fold.textContent = open ? '▾' : '▸';
        fold.setAttribute('aria-expanded', String(open));
        (el.querySelector('.lane-more') as HTMLElement).textContent = open ? '' : ` +${graph.hiddenUnder(lanes[i].name)}`;
      }
      if (box === undefined) {
        el.style.display = 'none';
        return;
      }
      // the lane is its rows high; its name at its top row
      const top = box.top + graph.cy.pan().y;
      const visible = top + box.height > 0 && top < height;
      el.style.display = visible ? '' : 'none';
      if (!visible) return;
      el.style.top = `${top}px`;
      el.style.height = `${box.height}px`;
      el.style.paddingTop = `${Math.max(0, graph.nodeOffset() - 8)}px`;
      el.classList.toggle('odd', (graph.row(i) ?? 0) % 2 === 1);
    });
  };
  return place;
}

/** What a lane is shown as: its label (a sub-agent by what it was asked, `context compaction`), else its name; controls shown. */
function shownName(lane: GraphLane): string {
  return plainLabel(lane.label ?? lane.name);
}
