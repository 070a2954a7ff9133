/**
 * A trace written while it is analysed (issue #30: after a 100-line append to a 1M-event trace, the
 * graph current within 100 ms p95): the row "append -> graph current" of bench/live.ts appends only
 * once the analysis of the last append ended; a running agent does not wait. Here a worker thread
 * appends {@link LINES} lines to a generated 1M-event otrace JSONL trace every {@link PERIOD_MS} ms
 * ({@link APPENDS} appends) and says when each write ended; the bench's thread is the engine's: a
 * SessionStore, as the worker runs it, gets a load for each append as a message between its phases
 * (the worker's message arrives as the host's would), and the host's request for the graph comes
 * {@link RTT_MS} ms after each answer (a read as it is, or analysed), answered at the store's next
 * turn as the engine answers it (layout structure, graph index, overview delta, first window at Fit).
 *
 * Per append, from the end of its write: until the graph first holds its events (graph current),
 * and until an analysis that read them is shown (its own, or carried by a newer read: decorations
 * current). Median, p95 and max over the appends; the longest stretches of the store's work between
 * two turns (what a message waits for); the machine's load.
 *   OTRACE_BENCH_SIZES=1M OTRACE_BENCH_LIVE=written npm run bench -- live
 * (OTRACE_BENCH_PERIOD_MS, OTRACE_BENCH_RTT_MS change the period and the round trip; OTRACE_BENCH_DEBUG=1 prints each write, when
 * its message was taken, each answer, when the graph held each append, and the collector's pauses over 30 ms; =2 also each
 * phase of the loads as reported and the parts of each graph answer: structure, index, overview, window.)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { PerformanceObserver } from 'node:perf_hooks';
import { SessionStore } from '../src/engine/session-store';
import { layoutStructure } from '../src/engine/graph-structure';
import { graphWindow, prepareGraph } from '../src/engine/graph-window';
import type { TraceSnapshot } from '../src/engine/snapshot';
import type { SessionSummary } from '../src/engine/summary';
import type { LoadProgress } from '../src/engine/worker-protocol';
import type { GraphOverview } from '../src/shared/protocol';
import { fitWindowRequest } from '../src/shared/fit';
import { median, quantile, writeOtraceTrace } from './live';
import { fmt } from './_util';

/** Lines per append. */
const LINES = 100;
/** Appends written per row. */
const APPENDS = 24;
/** ms between two appends' writes (an agent writing a few events a second). */
const PERIOD_MS = Number(process.env.OTRACE_BENCH_PERIOD_MS ?? 400);
/** ms from an answer to the host's request for the graph (the round trip through the extension host). */
const RTT_MS = Number(process.env.OTRACE_BENCH_RTT_MS ?? 5);
/** The graph area's width of the first window, px. */
const GRAPH_WIDTH = 1200;

/** One row: per append, ms from its write until the graph held its events and until its findings were shown. */
export interface WrittenRow {
  events: number;
  file_mb: number;
  appends: number;
  period_ms: number;
  rtt_ms: number;
  /** [median, p95, max] ms. */
  graph: [number, number, number];
  /** [median, p95, max] ms. */
  findings: [number, number, number];
  /** Answers the graph was asked for (reads as they are, analysed ones). */
  answers: { read: number; analysed: number };
  /** The store's work between two of its turns (where messages get in) while the appends were written: [p95, max] ms. */
  stretch: [number, number];
  load: [number, number];
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

/** The writer, in a worker thread: appends each chunk `period` ms after the last write's end, and posts `[k, end ms]`. */
const WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { file, chunks, period } = workerData;
let k = 0;
const next = () => {
  fs.appendFileSync(file, chunks[k]);
  parentPort.postMessage([k, Number(process.hrtime.bigint()) / 1e6]);
  if (++k < chunks.length) setTimeout(next, period);
};
setTimeout(next, period);
`;

/** A trace of `n` events written while it is followed: see the file's comment. */
export async function writtenRow(dir: string, n: number): Promise<WrittenRow> {
  const load0 = os.loadavg()[0];
  const file = path.join(dir, `written-${n}.otrace.jsonl`);
  const more = writeOtraceTrace(file, n, (APPENDS + 1) * LINES);
  const chunks = Array.from({ length: APPENDS + 1 }, (_, k) => `${more.slice(k * LINES, (k + 1) * LINES).join('\n')}\n`);
  // events after each append (the generated lines hold edges too)
  const eventsIn = (chunk: string) => chunk.split('\n').filter((l) => l !== '' && !l.startsWith('{"edge"')).length;
  // the store's turns as the worker gives them (two immediates), timed: what a message waits for at most
  const stretches: number[] = [];
  let timing = false;
  let turnEnded = now();
  /** The last progress message (to say what a long stretch of work was, with OTRACE_BENCH_DEBUG). */
  let lastMessage = '';
  const store = new SessionStore({
    yieldToMessages: async () => {
      if (timing) stretches.push(now() - turnEnded);
      if (timing && process.env.OTRACE_BENCH_DEBUG && now() - turnEnded > 250) process.stdout.write(`  ${Math.round(now() - turnEnded)} ms of work since the last turn, after: ${lastMessage}\n`);
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      turnEnded = now();
    },
  });
  const key = 'written';
  const request = { key, version: -1, path: file, local: true, changed: [file] };
  const sessions = (store as unknown as { sessions: Map<string, { snapshot?: TraceSnapshot; sent?: { overview: GraphOverview } }> }).sessions;
  let id = 0;
  // the file read, then grown once (it is followed from then on), as in the graph row
  await store.load(request, ++id);
  fs.appendFileSync(file, chunks[0]);
  const base = (await store.load(request, ++id))!.counts.events;
  const eventsAfter: number[] = [];
  for (let k = 1, total = base; k <= APPENDS; k++) eventsAfter.push((total += eventsIn(chunks[k])));

  const written: number[] = [];
  const graphAt: (number | undefined)[] = new Array(APPENDS).fill(undefined);
  const findingsAt: (number | undefined)[] = new Array(APPENDS).fill(undefined);
  const answers = { read: 0, analysed: 0 };
  let held: number | undefined;
  /** The host's request for the graph, answered from the session's snapshot as it is now. */
  const askGraph = () => {
    const askedAt = now();
    const snapshot = sessions.get(key)?.snapshot;
    if (!snapshot) return;
    layoutStructure(snapshot.loaded);
    const t1 = now();
    prepareGraph(snapshot);
    const t2 = now();
    const answer = store.graphOverviewUpdate(key, 'bench', undefined, held);
    if (!answer) return;
    held = answer.stamp;
    const t3 = now();
    const at = sessions.get(key)!.sent?.overview;
    if (at) graphWindow(snapshot, fitWindowRequest(at, GRAPH_WIDTH));
    if (process.env.OTRACE_BENCH_DEBUG === '2') process.stdout.write(`  answer: structure ${Math.round(t1 - askedAt)}, index ${Math.round(t2 - t1)}, overview ${Math.round(t3 - t2)}, window ${Math.round(now() - t3)}\n`);
    const t = now();
    const shown = snapshot.loaded.trace.events.length;
    const analysed = snapshot.analysis ? shown : (snapshot.carried?.events ?? 0);
    eventsAfter.forEach((e, k) => {
      if (written[k] === undefined) return;
      if (graphAt[k] === undefined && e <= shown) {
        graphAt[k] = t - written[k];
        if (process.env.OTRACE_BENCH_DEBUG) process.stdout.write(`  ${Math.round(t)} graph holds append ${k}: ${Math.round(graphAt[k]!)} ms after its write (the graph's answer ${Math.round(t - askedAt)} ms)\n`);
      }
      if (findingsAt[k] === undefined && e <= analysed) {
        findingsAt[k] = t - written[k];
        if (process.env.OTRACE_BENCH_DEBUG) process.stdout.write(`  ${Math.round(t)} findings of append ${k} shown: ${Math.round(findingsAt[k]!)} ms after its write (the graph's answer ${Math.round(t - askedAt)} ms)\n`);
      }
    });
  };
  const answered = (summary: SessionSummary | undefined, asRead: boolean) => {
    if (!summary) return;
    answers[asRead ? 'read' : 'analysed']++;
    lastMessage = asRead ? lastMessage : 'the load answered';
    if (process.env.OTRACE_BENCH_DEBUG) process.stdout.write(`  ${Math.round(now())} ${asRead ? 'read' : 'analysed'} ${summary.counts.events} (findings of ${summary.analysedEvents ?? (asRead ? 'none' : 'all')}, ${summary.analysedAs ?? ''})\n`);
    setTimeout(askGraph, RTT_MS);
  };
  const loads: Promise<unknown>[] = [];
  /** Loads given to the store and not answered yet. */
  let pending = 0;
  const hrOffset = now() - performance.now();
  const gcs = process.env.OTRACE_BENCH_DEBUG ? new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.duration > 30) process.stdout.write(`  ${Math.round(e.startTime + hrOffset)} GC pause ${Math.round(e.duration)} ms (kind ${(e as unknown as { detail?: { kind?: number } }).detail?.kind})\n`);
  }) : undefined;
  gcs?.observe({ entryTypes: ['gc'] });
  // the graph drawn once before the appends, as the panel draws it when the trace is shown (the first request
  // builds the graph's index of the analysed trace: 150 ms at 1M, which the first timed append waited for)
  askGraph();
  timing = true;
  await new Promise<void>((done, failed) => {
    const writer = new Worker(WRITER, { eval: true, workerData: { file, chunks: chunks.slice(1), period: PERIOD_MS } });
    writer.on('message', ([k, at]: [number, number]) => {
      written[k] = at;
      if (process.env.OTRACE_BENCH_DEBUG) process.stdout.write(`  ${Math.round(at)} written ${k}: ${eventsAfter[k]} (its message taken ${Math.round(now() - at)} ms later)\n`);
      const report = (p: LoadProgress) => {
        lastMessage = `${p.message}${p.read ? ' (as read)' : ''}`;
        if (process.env.OTRACE_BENCH_DEBUG === '2') process.stdout.write(`  ${Math.round(now())} ${lastMessage}\n`);
        if (p.read) answered(p.read, true);
      };
      // the store's work starts now when it had none (the stretch to its next turn is work, not the wait for this write)
      if (pending === 0) turnEnded = now();
      pending++;
      loads.push(
        store.load(request, ++id, report).then((s) => {
          pending--;
          answered(s, false);
        }),
      );
      if (k === APPENDS - 1) done();
    });
    writer.on('error', failed);
  });
  await Promise.all(loads);
  gcs?.disconnect();
  timing = false;
  await new Promise((r) => setTimeout(r, RTT_MS * 2));
  askGraph();
  const events = sessions.get(key)!.snapshot!.loaded.trace.events.length;
  if (events !== eventsAfter[APPENDS - 1]) throw new Error(`written row: ${events} events read, ${eventsAfter[APPENDS - 1]} written`);
  const stats = (xs: (number | undefined)[]): [number, number, number] => {
    if (xs.some((x) => x === undefined)) throw new Error('written row: an append never reached the graph');
    const ys = xs as number[];
    return [Math.round(median(ys)), Math.round(quantile(ys, 0.95)), Math.round(Math.max(...ys))];
  };
  return {
    events,
    file_mb: Math.round((fs.statSync(file).size / 1e6) * 10) / 10,
    appends: APPENDS,
    period_ms: PERIOD_MS,
    rtt_ms: RTT_MS,
    graph: stats(graphAt),
    findings: stats(findingsAt),
    answers,
    stretch: [Math.round(quantile(stretches, 0.95)), Math.round(Math.max(...stretches))],
    load: [load0, os.loadavg()[0]].map((l) => Math.round(l * 10) / 10) as [number, number],
  };
}

/** The table of the written rows. */
export function writtenTable(rows: WrittenRow[]): string {
  return [
    '| events | file MB | appends (every ms) | append -> graph current ms: median, p95, max | append -> its findings shown ms: median, p95, max | answers drawn (as read / analysed) | work between turns ms: p95, max | load before, after |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${fmt(r.events, 0)} | ${fmt(r.file_mb)} | ${r.appends} (${r.period_ms}) | ${r.graph.map((x) => fmt(x, 0)).join(', ')} | ${r.findings.map((x) => fmt(x, 0)).join(', ')} | ${r.answers.read} / ${r.answers.analysed} | ${r.stretch.join(', ')} | ${r.load.join(', ')} |`),
  ].join('\n');
}
