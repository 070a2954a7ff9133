/**
 * `npx tsx scripts/graph-hash.ts [--generated 10k,100k] DIR...`: a sha256 of the graph answers the
 * engine gives for every trace file under the given folders (and for generated bench traces): the
 * overview (and checks that its bytes, JSON and packed columns and findings' events, read back to the same overview), windows at several scales and ranges in both modes (with and without `keep`), each
 * event's details node, searches and the summary. To show that a memory or speed change of the
 * session left the graph alone (scripts/output-hash.ts covers load and analysis). A development
 * script, not a test. `--each` prints the per-part hashes of each file; `--set-aside` lets go of
 * long content after the analysis as the engine does (the answers must not change).
 */
import { createHash } from 'node:crypto';
import { fitWindowRequest } from '../src/shared/fit';
import { findEvents, graphEvent, graphOverview, graphOverviewBytes, graphWindow, snapshotStamp } from '../src/engine/graph-window';
import { setAsideLongContent } from '../src/engine/long-content';
import { makeSnapshot } from '../src/engine/snapshot';
import { summarize } from '../src/engine/summary';
import { loadTraceFile } from '../src/trace/load-file';
import { nodeFileAccess } from '../src/trace/node-files';
import '../src/trace/importers';
import type { GraphOverview, WindowRequest } from '../src/shared/protocol';
import { unpackOverview } from '../src/shared/overview-columns';
import { runHashes, sha } from './hash-run';

/** The overview's JSON with its columns as plain arrays (as the overview was written before the columns were typed arrays: the same hashes). */
function plainJson(overview: GraphOverview): string {
  return JSON.stringify({ ...overview, columns: Object.fromEntries(Object.entries(overview.columns).map(([k, v]) => [k, Array.from(v as ArrayLike<number>)])) });
}

/** The per-part hashes of one file: overview, windows, event nodes, searches, summary. */
function hashFile(file: string): string[] {
  let loaded;
  try {
    loaded = loadTraceFile(file, nodeFileAccess);
  } catch (err) {
    return [sha(`threw: ${(err as Error).message}`)];
  }
  const snapshot = makeSnapshot('k', -1, file, loaded);
  if (process.argv.includes('--set-aside')) setAsideLongContent(snapshot); // as the engine does for a trace read from disk
  const stamp = snapshotStamp(snapshot);
  const overview = graphOverview(snapshot, 'title');
  const bytes = graphOverviewBytes(snapshot, 'title');
  const parsed = unpackOverview(bytes.json, bytes.columns) as unknown as Record<string, unknown>;
  // The members in the overview's order (the JSON has no columns; they come last above).
  const sent = Object.fromEntries([...Object.keys(overview), ...Object.keys(parsed)].map((k) => [k, parsed[k]])) as unknown as GraphOverview;
  if (plainJson(sent) !== plainJson(overview)) throw new Error(`${file}: graphOverviewBytes reads back to another overview than graphOverview`);
  const n = loaded.trace.events.length;
  const windows = createHash('sha256');
  const fit = fitWindowRequest(overview, 1200);
  const span = Math.max(overview.axis.span, 1e-6);
  const requests: WindowRequest[] = [fit, { ...fit, mode: 'order', to: n, scale: 1100 / Math.max(n, 1) }];
  for (const mode of ['time', 'order'] as const) {
    const length = mode === 'time' ? span : n;
    for (const zoom of [1, 8, 64, 1024]) {
      for (const at of [0, 0.3, 0.77]) {
        const from = at * length;
        const to = from + length / zoom;
        requests.push({ seq: 1, stamp, mode, from, to, scale: (1100 * zoom) / length, keep: zoom === 8 ? [0, Math.floor(n / 2), n - 1] : [] });
      }
    }
  }
  for (const r of requests) windows.update(JSON.stringify(graphWindow(snapshot, { ...r, stamp })));
  const nodes = createHash('sha256');
  const step = Math.max(1, Math.floor(n / 20_000));
  for (let i = 0; i < n; i += step) nodes.update(JSON.stringify(graphEvent(snapshot, i)) ?? 'undefined');
  nodes.update(JSON.stringify(graphEvent(snapshot, n)) ?? 'undefined');
  const finds = ['e1', 'worker_3', 'search', 'alpha beta', 'stop', 'Paris', 'call'].map((q) => findEvents(snapshot, q));
  const summary = summarize(snapshot, 0, 0, false);
  return [sha(plainJson(overview)), windows.digest('hex'), nodes.digest('hex'), sha(JSON.stringify(finds)), sha(JSON.stringify(summary))];
}

runHashes(hashFile);
