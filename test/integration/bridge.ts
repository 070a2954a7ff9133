/**
 * Extension-host side of the test bridge: lets integration tests, which run inside the VS Code
 * extension host, ask the harness (scripts/vscode/run-integration.mjs) to look at the workbench
 * through the browser that shows it: evaluate code inside a webview, click in it, take a
 * screenshot. The harness runs a small HTTP server on 127.0.0.1 and passes its URL in the
 * environment variable OTRACE_TEST_BRIDGE (code-server hands its environment to the extension
 * host).
 */

import { format } from 'node:util';

export const BRIDGE_ENV = 'OTRACE_TEST_BRIDGE';

export interface WebviewOptions {
  /** CSS selector that the webview's document must contain; the first webview frame with a
   *  match is used. Default: any webview content frame. */
  selector?: string;
  /** How long to wait for such a webview to exist, in ms. Default 20000. */
  timeoutMs?: number;
  /** A page from {@link openPage}; default the tests' own workbench. */
  page?: number;
}

export interface TestCounts {
  passed: number;
  failed: number;
  pending: number;
  /** false for counts sent while the tests still run */
  final?: boolean;
}

class BridgeError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/** The bridge URL, or undefined when the tests do not run under the harness. */
export function bridgeUrl(): string | undefined {
  return process.env[BRIDGE_ENV] || undefined;
}

/** True when the harness's bridge is there (the tests run under run-integration.mjs). */
export function hasBridge(): boolean {
  return bridgeUrl() !== undefined;
}

async function post<T>(endpoint: string, body: unknown, timeoutMs = 30_000): Promise<T> {
  const base = bridgeUrl();
  if (!base) throw new Error(`no test bridge: ${BRIDGE_ENV} is not set (run the tests with scripts/vscode/run-integration.mjs)`);
  const res = await fetch(new URL(endpoint, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let data: { ok?: boolean; value?: T; error?: string; retry?: boolean };
  try {
    data = JSON.parse(text);
  } catch {
    throw new BridgeError(`bridge ${endpoint}: bad answer (${res.status}): ${text.slice(0, 200)}`, res.status, false);
  }
  if (!res.ok || !data.ok) throw new BridgeError(`bridge ${endpoint}: ${data.error ?? res.statusText}`, res.status, !!data.retry);
  return data.value as T;
}

/**
 * How many times longer than its stated timeout a wait may take before it fails (env
 * OTRACE_TEST_PATIENCE, default 3). A wait that succeeds returns as soon as its state holds, so
 * patience costs nothing on a quiet machine; on a machine running a second test run beside this
 * one (half the cores, several times the load) it keeps slow-but-right from reading as a failure.
 */
export const PATIENCE = Math.max(1, Number(process.env.OTRACE_TEST_PATIENCE) || 3);

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Calls `endpoint` until the harness finds the webview (it answers `retry` until then). */
async function withWebview<T>(endpoint: string, body: Record<string, unknown>, opts: WebviewOptions = {}): Promise<T> {
  const timeoutMs = (opts.timeoutMs ?? 20_000) * PATIENCE;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await post<T>(endpoint, { ...body, selector: opts.selector, page: opts.page }, Math.max(5_000, timeoutMs));
    } catch (e) {
      if (!(e instanceof BridgeError && e.retry) || Date.now() > deadline) {
        if (e instanceof BridgeError && e.retry) {
          throw new Error(`${e.message} (waited ${timeoutMs} ms)`);
        }
        throw e;
      }
    }
    await sleep(250);
  }
}

/**
 * Evaluates `js` in the content frame of a webview (webviews are nested iframes; the harness
 * looks through all frames of the page) and returns its JSON-serialisable result. `js` is an
 * expression ("document.title") or a function source ("() => [...document.querySelectorAll('.node')].length");
 * a returned Promise is awaited. Retries until a webview frame containing `opts.selector`
 * exists or `opts.timeoutMs` has passed. An exception thrown by `js` is thrown here at once.
 */
export function evalInWebview<T>(js: string, opts: WebviewOptions = {}): Promise<T> {
  return withWebview<T>('/eval-webview', { js }, opts);
}

/** Evaluates `js` in the workbench page itself (not a webview), as evalInWebview does; `page` is an id from {@link openPage}. */
export function evalInPage<T>(js: string, page?: number): Promise<T> {
  return post<T>('/eval-page', { js, page });
}

/** Opens `url` (another VS Code on 127.0.0.1, e.g. the one `npm start` runs) in a browser page of its own; returns its id for the other calls. */
export function openPage(url: string): Promise<number> {
  return post<number>('/open-page', { url }, 60_000);
}

/** Closes a page opened with {@link openPage}. */
export function closePage(page: number): Promise<void> {
  return post<void>('/close-page', { page });
}

/** Options of {@link clickInWebview}. */
export interface ClickOptions extends Omit<WebviewOptions, 'selector'> {
  /** Where to click, in CSS pixels from the element's top left corner (default: its centre). */
  position?: { x: number; y: number };
  /** The webview to click in: the first containing this selector (default: `selector` itself). */
  frame?: string;
}

/** Clicks the first element matching `selector` in a webview with a real (Playwright) mouse click. */
export function clickInWebview(selector: string, opts: ClickOptions = {}): Promise<void> {
  return withWebview<void>('/click-webview', { click: selector, position: opts.position }, { ...opts, selector: opts.frame ?? selector });
}

/**
 * Presses keys with the browser's real keyboard (Playwright key names: `ArrowRight`, `f`,
 * `Shift+ArrowLeft`, `Escape`), then types `text` if given. The keys go wherever the focus is in
 * the workbench, exactly as a user's would: to a text editor, a webview, or nowhere.
 */
export function pressKeys(keys: string[], text?: string): Promise<void> {
  return post<void>('/keyboard', { press: keys, type: text });
}

/**
 * Writes a PNG of the whole VS Code page to `path` (relative paths are taken from the project
 * root) and returns the absolute path written.
 */
export function screenshot(path: string, page?: number): Promise<string> {
  return post<string>('/screenshot', { path, page });
}

/**
 * Output to the harness's stdout, in order: lines are batched for a moment and sent one batch
 * after the other. Without the harness they go to console.log.
 */
export const output = (() => {
  let chain: Promise<void> = Promise.resolve();
  let buffer = '';
  let timer: NodeJS.Timeout | undefined;
  const send = () => {
    timer = undefined;
    if (!buffer) return;
    const text = buffer;
    buffer = '';
    chain = chain.then(() => sendLog(text)).catch(() => undefined);
  };
  return {
    write(text: string): void {
      if (!hasBridge()) {
        console.log(text.replace(/\n$/, ''));
        return;
      }
      buffer += text.endsWith('\n') ? text : `${text}\n`;
      timer ??= setTimeout(send, 50);
    },
    /** Resolves when everything written so far has reached the harness. */
    async flush(): Promise<void> {
      if (timer) clearTimeout(timer);
      send();
      await chain;
    },
  };
})();

/**
 * Prints a line (formatted like console.log) on the harness's stdout, in order with mocha's
 * output. Plain console.log in the extension host reaches only the harness's run log.
 */
export function testLog(...args: unknown[]): void {
  output.write(format(...args));
}

/** Sends output lines to the harness, which prints them (used by the mocha runner). */
export function sendLog(text: string): Promise<void> {
  return post<void>('/log', { text }, 10_000);
}

/** Reports the mocha counts to the harness, which prints them as its last line. */
export function reportResult(counts: TestCounts): Promise<void> {
  return post<void>('/result', counts, 10_000);
}
