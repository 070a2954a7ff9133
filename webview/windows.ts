/**
 * Asks the host for the window the view needs: when the view leaves the loaded range, the level of
 * detail (bucket width) changes, the axis mode changes, or an event to keep on its own (the
 * current one, a framed finding's) is drawn inside a run bar. One request at a time; the answer
 * that matches the latest request is applied, then the need is checked again.
 */
import { bucketWidth } from '../src/shared/axis';
import type { GraphWindow, WindowRequest } from '../src/shared/protocol';
import type { TraceGraph } from './graph';

/** Extra room loaded on each side of the view, as a fraction of its width. */
const MARGIN = 0.3;

export class WindowLoader {
  private seq = 0;
  /** The request waiting for its answer, if any. */
  private pending: WindowRequest | undefined;
  /** Events kept on their own. */
  private keep: number[] = [];
  /** Windows applied so far (for tests). */
  applied = 0;
  /** Windows asked for so far (for tests: none when the host's first window fitted the view). */
  asked = 0;
  /** The keep list the loaded window was asked with (a keep list asks once, so nothing loops). */
  private loadedKeep = '';

  constructor(
    private readonly graph: TraceGraph,
    private readonly send: (request: WindowRequest) => void,
    /** Called after a window was applied (re-apply selection, dimming, filter). */
    private readonly onApplied: () => void,
  ) {}

  /** Sets the events to keep on their own (the current event first) and loads them if needed. */
  setKeep(indices: number[]): void {
    this.keep = [...new Set(indices)].slice(0, 200);
    this.check();
  }

  /** True while a window is asked for and not answered. */
  get loading(): boolean {
    return this.pending !== undefined;
  }

  /** Asks for a new window if the view needs one. */
  check(): void {
    if (this.pending) return;
    const g = this.graph;
    // The view clamped to the trace (there is nothing left of 0 or right of the axis's end).
    const [left, right] = g.viewRange();
    const a = Math.max(0, Math.min(left, g.axisLength()));
    const b = Math.max(a, Math.min(right, g.axisLength()));
    const bucket = bucketWidth(g.scale);
    const w = g.window;
    const keepMissing = this.loadedKeep !== this.keep.join() && this.keep.some((i) => {
      const [s] = g.spanOf(g.drawnIndex(i));
      return w !== undefined && s >= w.from && s < w.to && !g.nodeOfIndex(i);
    });
    if (w && w.mode === g.mode && w.bucket === bucket && a >= w.from && b <= w.to && !keepMissing) return;
    const m = (right - left) * MARGIN;
    this.pending = { seq: ++this.seq, stamp: g.graph.stamp, mode: g.mode, from: Math.max(0, a - m), to: b + m, scale: g.scale, keep: this.keep };
    this.asked++;
    this.send(this.pending);
  }

  /**
   * Draws a window the host sent unasked (the first one, with the overview) when nothing is asked
   * for yet and it is of this trace and axis mode; the next `check` asks for more only if the view
   * needs it (another bucket width, a range beyond it).
   */
  preload(win: GraphWindow): void {
    if (this.pending || win.stamp !== this.graph.graph.stamp || win.mode !== this.graph.mode) return;
    this.loadedKeep = ''; // asked with no events to keep
    this.graph.apply(win);
    this.applied++;
    this.onApplied();
  }

  /**
   * Draws the window the host sent with an update of the trace for the view the page held (a
   * restored view: src/shared/fit.ts `heldViewRequest`), when it is at the view's level of detail;
   * `check` then asks only for what it does not cover.
   */
  preloadHeld(win: GraphWindow): void {
    if (win.bucket === bucketWidth(this.graph.scale)) this.preload(win);
  }

  /**
   * Applies an answer (a stale one is dropped) after the next paint, then checks whether the view
   * moved on meanwhile. A step's focus ring (a page element) is painted at once; the window's
   * redraw of the graph (tens of ms in software rendering) comes in the frame after, not in the
   * step's own (the answer often arrives before that frame).
   */
  receive(win: GraphWindow): void {
    if (!this.isAnswer(win)) return;
    afterNextPaint(() => this.apply(win));
  }

  private isAnswer(win: GraphWindow): boolean {
    return !!this.pending && win.seq === this.pending.seq && win.stamp === this.graph.graph.stamp;
  }

  private apply(win: GraphWindow): void {
    if (!this.isAnswer(win) || !this.pending) return; // the trace was replaced meanwhile
    const keep = (this.pending.keep ?? []).join();
    this.pending = undefined;
    if (win.mode === this.graph.mode) {
      this.loadedKeep = keep;
      this.graph.apply(win);
      this.applied++;
      this.onApplied();
    }
    this.check();
  }
}

/**
 * Runs `task` once, in a task after the next frame is painted (a message posted from a frame
 * callback runs after that frame), or after 100 ms if no frame comes (a hidden webview paints none).
 */
function afterNextPaint(task: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    task();
  };
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = once;
    channel.port2.postMessage(0);
  });
  setTimeout(once, 100);
}
