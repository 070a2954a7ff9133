/**
 * Stepping through the trace in time: the current event (highlighted; later events dimmed), the
 * `n / N` counter and its time, next/previous event, event of the same agent, stop and finding,
 * first/last, and play/pause at a chosen speed.
 */
import { axisToTime } from '../src/shared/axis';
import type { GraphOverview } from '../src/shared/protocol';
import { formatDuration } from './axis';

/** Where stepping can go. */
export type StepTarget = 'next' | 'previous' | 'first' | 'last' | 'nextOfAgent' | 'previousOfAgent' | 'nextStop' | 'previousStop' | 'nextFinding' | 'previousFinding';

/** The timeline of the whole trace (from the overview's columns, loaded or not): event indices in time order and the current position in them. */
export class Timeline {
  /** Stops and the findings' events in time order: made on the first step to one (at 1M events, 200,000 findings' events). */
  private stopList: number[] | undefined;
  private findingList: number[] | undefined;
  /** Position in `order`, or -1 before the first event. */
  position = -1;
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Events per second while playing. */
  speed = 4;

  constructor(
    private readonly graph: GraphOverview,
    /** Position of each event index in time order (the inverse of `columns.byTime`; the graph view's `rank`, made on first use). */
    private readonly ranks: () => Int32Array,
    /** Moves the selection to an event (the timeline's current event). */
    private readonly go: (index: number) => void,
    private readonly onPlayChange: (playing: boolean) => void,
  ) {}

  /** Event indices in time order (the overview's byTime: made on first read when it is the file order). */
  get order(): Int32Array {
    return this.graph.columns.byTime;
  }

  /** Position of each event index in `order`. */
  private get rank(): Int32Array {
    return this.ranks();
  }

  /** The stops in time order: found in file order (a sequential pass over the kind column), then put in time order. */
  private get stops(): number[] {
    if (this.stopList) return this.stopList;
    const c = this.graph.columns;
    const stop = this.graph.kinds.indexOf('stop');
    const stops: number[] = [];
    for (let i = 0; i < c.kind.length; i++) if (c.kind[i] === stop) stops.push(i);
    return (this.stopList = this.inTimeOrder(stops));
  }

  /** The findings' events (sound stops left out) in time order. */
  private get findingEvents(): number[] {
    if (this.findingList) return this.findingList;
    const n = this.order.length;
    const ranks: number[] = [];
    const rank = this.rank;
    for (const f of this.graph.findings) if (!(f.kind === 'stop' && f.mode === 'ok')) for (const i of f.events) if (i >= 0 && i < n) ranks.push(rank[i]);
    return (this.findingList = this.inTimeOrder(ranks, true));
  }

  /**
   * Event indices in time order, each once: their ranks sorted as numbers (a typed-array sort, no
   * comparator call per pair). `ranked`: the list holds ranks already.
   */
  private inTimeOrder(list: number[], ranked = false): number[] {
    const rank = this.rank;
    const ranks = Int32Array.from(list, ranked ? (r) => r : (i) => rank[i]).sort();
    const out: number[] = [];
    for (let k = 0; k < ranks.length; k++) if (k === 0 || ranks[k] !== ranks[k - 1]) out.push(this.order[ranks[k]]);
    return out;
  }

  /** The current event's index, if any. */
  get current(): number | undefined {
    return this.position >= 0 ? this.order[this.position] : undefined;
  }

  /** Follows a selection made elsewhere (a click, the editor). */
  setCurrent(index: number): void {
    const pos = this.rank[index];
    if (pos !== undefined) this.position = pos;
  }

  /** Steps to a target; returns false when there is nowhere to go. */
  step(target: StepTarget): boolean {
    const pos = this.position;
    const here = this.current;
    const lanes = this.graph.columns.lane;
    const agent = here === undefined ? undefined : lanes[here];
    const after = (list: number[]) => list.find((i) => this.rank[i] > pos);
    const before = (list: number[]) => [...list].reverse().find((i) => this.rank[i] < (pos < 0 ? this.order.length : pos));
    let next: number | undefined;
    switch (target) {
      case 'next':
        next = this.order[Math.min(this.order.length - 1, pos + 1)];
        break;
      case 'previous':
        next = this.order[Math.max(0, pos - 1)];
        break;
      case 'first':
        next = this.order[0];
        break;
      case 'last':
        next = this.order[this.order.length - 1];
        break;
      case 'nextOfAgent':
        next = agent === undefined ? this.order[0] : this.scan(pos + 1, 1, (i) => lanes[i] === agent);
        break;
      case 'previousOfAgent':
        next = agent === undefined ? undefined : this.scan(pos - 1, -1, (i) => lanes[i] === agent);
        break;
      case 'nextStop':
        next = after(this.stops) ?? this.stops[0];
        break;
      case 'previousStop':
        next = before(this.stops);
        break;
      case 'nextFinding':
        next = after(this.findingEvents) ?? this.findingEvents[0];
        break;
      case 'previousFinding':
        next = before(this.findingEvents);
        break;
    }
    if (next === undefined || next === here) return false;
    this.position = this.rank[next];
    this.go(next);
    return true;
  }

  /** The first event from position `pos` on, going `dir`, that `ok` accepts. */
  private scan(pos: number, dir: 1 | -1, ok: (index: number) => boolean): number | undefined {
    for (let p = pos; p >= 0 && p < this.order.length; p += dir) if (ok(this.order[p])) return this.order[p];
    return undefined;
  }

  /**
   * Steps to the next (`dir` 1) or previous (-1) event of `indices` in time order from the current
   * one, wrapping around (Enter in the filter box: the next match); false when there is none to go to.
   */
  stepAmong(indices: Iterable<number>, dir: 1 | -1): boolean {
    const pos = this.position;
    let next: number | undefined;
    let nextRank = 0;
    let wrap: number | undefined;
    let wrapRank = 0;
    for (const i of indices) {
      const r = this.rank[i];
      if (r === undefined) continue;
      if ((dir === 1 ? r > pos : r < pos) && (next === undefined || (dir === 1 ? r < nextRank : r > nextRank))) [next, nextRank] = [i, r];
      if (wrap === undefined || (dir === 1 ? r < wrapRank : r > wrapRank)) [wrap, wrapRank] = [i, r];
    }
    const target = next ?? wrap;
    if (target === undefined || target === this.current) return false;
    this.position = this.rank[target];
    this.go(target);
    return true;
  }

  /** 1-based place of the current event among `indices` in time order (0: it is not among them). */
  placeAmong(indices: Iterable<number>): number {
    const here = this.current;
    if (here === undefined) return 0;
    const pos = this.rank[here];
    let before = 0;
    let found = false;
    for (const i of indices) {
      if (i === here) found = true;
      else if (this.rank[i] !== undefined && this.rank[i] < pos) before++;
    }
    return found ? before + 1 : 0;
  }

  /** `n / N` and the current event's time: its `t` in the trace (as the details pane and the axis give it). */
  status(): { counter: string; time: string } {
    const total = this.graph.columns.tx.length; // not order's: that may be made on first read
    const here = this.current;
    if (here === undefined) return { counter: `– / ${total.toLocaleString('en-US')}`, time: '' };
    const t = this.time(here);
    // a trace with no clock counts steps (a benchmark log): never seconds it does not have
    return { counter: `${(this.position + 1).toLocaleString('en-US')} / ${total.toLocaleString('en-US')}`, time: this.graph.timeUnit === 'steps' ? `step ${Math.round(t * 1000) / 1000}` : `t = ${formatDuration(t)}` };
  }

  /** Trace time (seconds) of an event. */
  time(index: number): number {
    return axisToTime(this.graph.axis, this.graph.columns.tx[index]);
  }

  get playing(): boolean {
    return this.timer !== undefined;
  }

  /** Starts or stops playing (one event per 1/speed s; stops at the end). */
  togglePlay(): void {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    } else {
      if (this.position >= this.order.length - 1) this.position = -1;
      this.timer = setInterval(() => {
        if (!this.step('next') || this.position >= this.order.length - 1) this.togglePlay();
      }, 1000 / this.speed);
    }
    this.onPlayChange(this.playing);
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
