/**
 * Level of detail for labels: greedily keeps the labels of the most important events (stops,
 * marked events, spawns, delegations and returns, then the rest in time order) whose boxes do not
 * overlap a kept one in the same lane, each with its content (`Bash: npm test`) where that fits, else
 * its short form (`Bash`); the rest are hidden (class `nolabel`).
 */
import type { Core } from 'cytoscape';
import { STOP_RANK } from './graph-elements';
import { LABEL_FONT, LABEL_MAX } from './graph-style';

/** A node or run bar whose label may be shown. */
export interface LabelCandidate {
  id: string;
  lane: number;
  /** Centre x of the node in graph px (before pan). */
  cx: number;
  text: string;
  /** A shorter label (`Bash` for `Bash: npm test`), shown when the full one does not fit. */
  short?: string;
  bold: boolean;
  /** Lower wins (see `priority` in graph-elements.ts). */
  rank: number;
  /** Time-order rank: ties go to the earlier (stops without a problem: the later). */
  order: number;
}

/** Shows the labels of one graph that fit, measured once per distinct text. */
export class LabelPlacer {
  /** Nodes whose label is shown (every node starts with class `nolabel`). */
  private labelled = new Set<string>();
  private readonly measure = document.createElement('canvas').getContext('2d');
  private readonly fontFamily = getComputedStyle(document.body).fontFamily || 'sans-serif';
  private readonly widths = new Map<string, number>();

  constructor(private readonly cy: Core) {}

  /** Shows the labels of `candidates` that fit in the graph `width` px wide at pan `panX`, hides the others. */
  place(candidates: LabelCandidate[], width: number, panX: number): void {
    const lanesOfBoxes = new Map<number, [number, number][]>();
    const keep = new Set<string>();
    const shifted = new Map<string, number>();
    /** Nodes shown with their short label. */
    const shortened = new Map<string, string>();
    candidates.sort((a, b) => a.rank - b.rank || (a.rank === STOP_RANK ? b.order - a.order : a.order - b.order));
    for (const n of candidates) {
      const cx = n.cx;
      // A label the panel's edge would cut slides inside it while its node is in view (the run's
      // last stop sits at the right edge at Fit); a node out of view keeps none.
      if (cx + panX < 0 || cx + panX > width) continue;
      const list = lanesOfBoxes.get(n.lane) ?? [];
      for (const text of n.short ? [n.text, n.short] : [n.text]) {
        const w = Math.min(LABEL_MAX, this.textWidth(text, n.bold)) + 12;
        const dx = Math.min(0, width - (cx + w / 2 + panX)) || Math.max(0, -(cx - w / 2 + panX));
        if (!insertIfFree(list, [cx - w / 2 + dx, cx + w / 2 + dx])) continue;
        lanesOfBoxes.set(n.lane, list);
        keep.add(n.id);
        if (dx !== 0) shifted.set(n.id, dx);
        if (text !== n.text) shortened.set(n.id, text);
        break;
      }
    }
    this.cy.batch(() => {
      for (const id of this.labelled) if (!keep.has(id)) this.cy.getElementById(id).addClass('nolabel'); // a removed id: an empty collection
      for (const id of keep) {
        const ele = this.cy.getElementById(id);
        if (ele.hasClass('nolabel')) ele.removeClass('nolabel');
        const dx = shifted.get(id) ?? 0;
        if ((ele.data('dx') ?? 0) !== dx) ele.data('dx', dx);
        const label = shortened.get(id) ?? ele.data('full');
        if (label !== undefined && ele.data('label') !== label) ele.data('label', label);
      }
    });
    this.labelled = keep;
  }

  /** On-screen width of a label in px (measured once per distinct text). */
  private textWidth(text: string, bold = false): number {
    const key = `${bold ? 'b' : 'n'}${text}`;
    const known = this.widths.get(key);
    if (known !== undefined) return known;
    let w = text.length * LABEL_FONT * 0.65;
    if (this.measure) {
      this.measure.font = `${bold ? 'bold ' : ''}${LABEL_FONT}px ${this.fontFamily}`;
      w = this.measure.measureText(text).width;
    }
    this.widths.set(key, w);
    return w;
  }
}

/** Inserts `box` into the sorted, disjoint `list` unless it overlaps one there. */
function insertIfFree(list: [number, number][], box: [number, number]): boolean {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid][0] < box[0]) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && list[lo - 1][1] > box[0]) return false;
  if (lo < list.length && list[lo][0] < box[1]) return false;
  list.splice(lo, 0, box);
  return true;
}
