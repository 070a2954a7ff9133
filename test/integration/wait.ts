/**
 * Waiting in integration tests for something the extension, VS Code or the graph's webview does
 * asynchronously: every wait is for a state, never for a fixed time.
 */
import { PATIENCE, evalInWebview } from './bridge';

/**
 * Polls `get` every `everyMs` until it gives a value other than undefined, null or false, and
 * returns that value.
 * @throws Error("timed out waiting for <what>") after `timeoutMs` × {@link PATIENCE}.
 */
export async function until<T>(what: string, get: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs * PATIENCE;
  for (;;) {
    const v = await get();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Polls `read` every `everyMs` until `ok` accepts what it read, and returns that value.
 * @throws Error("timed out waiting for <what>; last: <the last value read, as JSON>") after `timeoutMs` × {@link PATIENCE}.
 */
export async function untilValue<T>(what: string, read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs * PATIENCE;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${shown(v)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A value for a failure message: its JSON (cut at 500 characters), else its string. */
function shown(v: unknown): string {
  try {
    return (JSON.stringify(v) ?? String(v)).slice(0, 500);
  } catch {
    return String(v);
  }
}

/**
 * Evaluates `js` (a function source, see {@link evalInWebview}) in the webview whose document
 * matches `selector` until it gives a value other than undefined, null or false, and returns it.
 * @throws Error("timed out waiting for <what>") after `timeoutMs`.
 */
export function untilInWebview<T>(what: string, js: string, selector: string, timeoutMs = 20_000): Promise<T> {
  return until(what, () => evalInWebview<T | undefined>(js, { selector }), timeoutMs);
}

/**
 * An expression, for the webview, that is true when its graph is settled: no redraw of the axis,
 * labels and minimap waits for the next frame and no window of the graph is asked for and
 * unanswered (`globalThis.__otrace.settled()`). A change of the panel's size reaches the graph
 * later (a ResizeObserver): wait for the graph's size itself.
 */
export const SETTLED = 'globalThis.__otrace.settled()';

/** What the graph's page says of its state: whether it is settled, and why not (for failure messages). */
export interface GraphState {
  settled: boolean;
  /** Commands the page has run. */
  commands: number;
  /** The current event, or null. */
  current: number | null;
  /** A window is asked for and unanswered. */
  loading: boolean;
  /** The graph's size and its container's: [width, height, container width, container height] in px. */
  size: number[];
}

/** Reads the {@link GraphState} of the webview matching `selector`. */
export function graphState(selector: string): Promise<GraphState> {
  return evalInWebview<GraphState>(
    `() => { const o = globalThis.__otrace; const box = document.getElementById('graph'); return { settled: ${SETTLED}, commands: o.commands(), current: o.current(), loading: o.windows().loading, size: [o.cy.width(), o.cy.height(), box.clientWidth, box.clientHeight] }; }`,
    { selector },
  );
}

/**
 * Waits until the graph in the webview matching `selector` is settled (see {@link SETTLED}) and
 * `ok` holds: what a view change (fit, zoom, pan, resize, a step) starts has been drawn.
 */
export function untilGraphSettled(selector: string, ok: (s: GraphState) => boolean = () => true, what = 'the graph to settle', timeoutMs = 20_000): Promise<GraphState> {
  return untilValue(what, () => graphState(selector), (s) => s.settled && ok(s), timeoutMs);
}

/**
 * Posts `message` (a JavaScript expression evaluated in the webview, e.g.
 * `{ type: 'select', stamp: globalThis.__otrace.graph.stamp, index: 3 }`) to the page of the
 * webview matching `selector` as the host would, and resolves once the page has handled it:
 * a mark posted after it arrives after it (a window's messages are delivered in order), and the
 * page's own listener, added first, has run by then.
 */
export function postAsHost(message: string, selector: string): Promise<void> {
  return evalInWebview<void>(
    `() => new Promise((done) => {
      const mark = 'otrace-test-mark-' + Math.random();
      const seen = (e) => { if (e.data && e.data.type === mark) { window.removeEventListener('message', seen); done(); } };
      window.addEventListener('message', seen);
      window.postMessage(${message}, '*');
      window.postMessage({ type: mark }, '*');
    })`,
    { selector },
  );
}

/** How many commands (palette, keys, buttons) the page in the webview matching `selector` has run. */
export function commandsRun(selector: string): Promise<number> {
  return evalInWebview<number>('() => globalThis.__otrace.commands()', { selector });
}

/**
 * Waits until the page in the webview matching `selector` has run more than `before` commands
 * (see {@link commandsRun}; a palette command reaches the page as a message) and its graph is settled.
 */
export function untilCommandDrawn(before: number, selector: string, what = 'the command to be drawn', timeoutMs = 20_000): Promise<GraphState> {
  return untilGraphSettled(selector, (s) => s.commands > before, what, timeoutMs);
}
