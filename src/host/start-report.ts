/**
 * otrace's own part of `npm start`'s time: from the extension's activation (this module loads with
 * the extension's bundle) to the first graph of the start trace painted in its webview. `npm start`
 * sets OTRACE_START_TRACE and OTRACE_START_REPORT (a file path); the figure is written there once,
 * as JSON, for start.mjs to print. Without those variables nothing happens.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const activatedAt = performance.now();
/** The same moment as a wall-clock time (ms since the epoch), to place the webview's moments. */
const activatedEpoch = performance.timeOrigin + activatedAt;
let reported = false;
/** Named moments of the start, in ms since activation. */
const marks: Record<string, number> = {};

/** Records a named moment of the start (the first time only), for the report's breakdown. */
export function markStart(name: string): void {
  if (process.env.OTRACE_START_REPORT && !(name in marks)) marks[name] = Math.round(performance.now() - activatedAt);
}

/**
 * Records moments the graph webview measured itself (wall-clock ms since the epoch, from its
 * `performance.timeOrigin`; same machine, same clock), under their names, the first time only.
 */
export function markStartAt(moments: Record<string, number>): void {
  if (!process.env.OTRACE_START_REPORT) return;
  for (const [name, epoch] of Object.entries(moments))
    if (!(name in marks) && Number.isFinite(epoch)) marks[name] = Math.round(epoch - activatedEpoch);
}

/** What the start report file holds. */
export interface StartReport {
  trace: string;
  events: number;
  /** Milliseconds from activation to the graph painted. */
  activationToPaintMs: number;
  /** Named moments before it, in ms since activation. */
  marks: Record<string, number>;
}

/** Called when a graph webview has painted the trace at `file` with `events` nodes. */
export function reportPainted(file: string, events: number): void {
  const target = process.env.OTRACE_START_TRACE;
  const out = process.env.OTRACE_START_REPORT;
  if (reported || !target || !out || path.resolve(file) !== path.resolve(target)) return;
  reported = true;
  const report: StartReport = { trace: file, events, activationToPaintMs: Math.round(performance.now() - activatedAt), marks };
  try {
    fs.writeFileSync(out, JSON.stringify(report) + '\n');
  } catch (err) {
    console.error('otrace: cannot write the start report', err);
  }
}
