import assert from 'node:assert/strict';
import { test } from 'node:test';
import { targetRows, targetTable } from '../../../bench/targets';

const read = { rows: [{ trace: '1M-long', ratio: 9, ratio_runs: [9], read_ms: 9, bare_ms: 1, ratio_to_kept: 9, kept_ms: 1, columns_ratio: 9, columns_ratio_to_kept: 9, analysis_events_per_s: 1 }, { trace: '1M', ratio: 1.5, ratio_runs: [1.4, 1.5, 1.6], read_ms: 3000, bare_ms: 2000, ratio_to_kept: 1.01, kept_ms: 2970, columns_ratio: 1.45, columns_ratio_to_kept: 0.95, analysis_events_per_s: 300_000 }] };
const hostRow = (trace: string, engine: string, paint: number) => ({ trace, engine, first_paint_s: paint * 2, bare_parse_s: 2, first_paint_to_bare: paint, first_paint_before_analysis: true, rss_peak_above_idle_mb: 401, rss_after_above_idle_mb: 300, idle_rss_mb: 410, loop_delay_p99_ms: 50, loop_delay_max_ms: 60 });

test('the targets table reads each target from its own row and says whether it holds, at the limits', () => {
  const results = {
    read,
    host: { rows: [hostRow('1M', 'thread', 1), { ...hostRow('1M', 'process', 1.5), engine_process_peak_rss_mb: 750 }, hostRow('1M-agents', 'process', 3.01)] },
    live_follow: { rows: [{ follow_p95_ms: 100, follow_median_ms: 40, whole_median_ms: 8000 }] },
    live_graph: { rows: [{ total: [50, 100.4] as [number, number] }] },
    live_written: { rows: [{ period_ms: 400, graph: [40, 100, 120] as [number, number, number], findings: [90, 101, 130] as [number, number, number] }] },
    corpus: { traces: 10_000, speedup: 1.79, jobs1_s: 17.9, jobs2_s: 10, two_shard_processes_speedup: 1.6 },
  };
  const loads = { read: [0.1, 1] as [number, number], host: [1, 2] as [number, number], follow: [2, 3] as [number, number], graph: [3, 4] as [number, number], written: [3.5, 3.6] as [number, number], corpus: [4, 5] as [number, number] };
  const rows = targetRows(results, loads);
  assert.deepEqual(
    rows.map((r) => r.holds),
    // read 1.5 (holds at the limit) and to kept 1.01 (no); paint 1.5 of the engine in its own process, as the extension runs it (yes; the thread's 1 is beside it);
    // analysis 300k (yes); graph p95 100.4 (no); follow 100 (yes); written: graph 100 (yes), findings 101 (no); RSS 401 (no); agents 3.01 (no); p99 50 (no: < 50); jobs 1.79 (no)
    [true, false, true, true, false, true, true, false, false, false, false, false],
  );
  assert.match(rows[0].figure, /^1\.5x \(3000 \/ 2000 ms; runs 1\.4, 1\.5, 1\.6\); column reader 1\.45x$/);
  assert.deepEqual(rows[4].load, [3, 4]);
  assert.deepEqual(rows[6].load, [3.5, 3.6]);
  assert.equal(rows[6].figure, 'p95 100 ms, median 40 ms (appends every 400 ms)');
  assert.deepEqual(rows[11].load, [4, 5]);
  assert.match(rows[11].figure, /^1\.79x \(17\.90 \/ 10\.00 s over 10,000 traces; two one-job processes on a shard each: 1\.6x\)$/);
  assert.match(targetTable(rows), /\| first paint of 1M ≤ 1\.5x the bare parse of its file \| 1\.5x \(3 s \/ 2 s, before the analysis\); engine in a worker thread: 1x \(2 s \/ 2 s, before the analysis\) \| yes \| 1, 2 \|/);
  assert.equal(rows[8].figure, "+401 MB peak, +300 after (idle 410 MB); the engine's process: 750 MB peak; engine in a worker thread: +401 MB peak, +300 after (idle 410 MB)");
  assert.equal(rows[9].figure, '3.01x (6.02 s / 2 s)', 'no thread row for 1M agents: nothing beside');
});

test('a target whose bench did not run in this run is "not measured", not read from an older run left in the results', () => {
  const rows = targetRows({ read, corpus: { traces: 10, speedup: 2, jobs1_s: 2, jobs2_s: 1, two_shard_processes_speedup: 2 } }, { read: [1, 1] });
  assert.equal(rows.filter((r) => r.holds !== undefined).length, 3); // the two read ratios and the analysis rate
  const jobs = rows.at(-1)!;
  assert.equal(jobs.figure, 'not measured');
  assert.equal(jobs.holds, undefined);
  assert.match(targetTable(rows), /\| `dataset stops --jobs 2` over 10,000 traces ≥ 1\.8x one job \| not measured \| – \| – \|/);
});
