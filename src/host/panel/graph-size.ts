/**
 * The graph area's last known size, kept across windows and starts (global state), so the host can
 * send a new panel's first window with its overview (see `fitWindowRequest`) before the webview
 * has told its own size.
 */
import type * as vscode from 'vscode';

/** Width and height of the graph area, in px. */
export interface GraphSize {
  width: number;
  height: number;
}

const KEY = 'otrace.graphSize';
/** Width assumed before any graph has told its size: a graph beside an editor on a laptop screen. */
const DEFAULT: GraphSize = { width: 600, height: 500 };

let store: vscode.Memento | undefined;
let last: GraphSize | undefined;

function valid(size: unknown): size is GraphSize {
  const s = size as Partial<GraphSize> | undefined;
  return !!s && Number.isFinite(s.width) && Number.isFinite(s.height) && s.width! >= 50 && s.height! >= 50 && s.width! < 20_000 && s.height! < 20_000;
}

/** Keeps the size in `memento` (the extension's global state), reading the one kept last time. */
export function keepGraphSizeIn(memento: vscode.Memento): void {
  store = memento;
  const kept = memento.get<unknown>(KEY);
  if (valid(kept)) last = kept;
}

/** The size a graph area last told (a default before any did). */
export function lastGraphSize(): GraphSize {
  return last ?? DEFAULT;
}

/** Remembers the size a graph webview told (ignored unless plausible; written only when it changed). */
export function rememberGraphSize(size: unknown): void {
  if (!valid(size)) return;
  const next = { width: Math.round(size.width), height: Math.round(size.height) };
  if (last && last.width === next.width && last.height === next.height) return;
  last = next;
  void store?.update(KEY, next);
}
