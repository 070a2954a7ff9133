/**
 * Pauses inside the long phases of the analysis (src/analysis/pauses.ts, issue #30): with a pause at
 * every seam (`pauseAfterMs: 0`) the phases yield `pause` between the index's link passes, between the loop detectors, between two
 * stops' verdicts, between the stages of the credit and the passes of the metrics, and the analysis is the one made in one
 * call, on every otrace fixture, real sessions of other formats and a generated trace of 20,000
 * events; with pauses off (`Infinity`) none comes.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { generateRecords } from '../../../bench/_generate';
import { analysisSteps, analyzeTrace, type Analysis, type AnalysisPhase } from '../../../src/analysis';
import '../../../src/trace/importers';
import { loadTraceFile } from '../../../src/trace/load-file';
import type { LoadedTrace } from '../../../src/trace/model';
import { readTraceJsonl } from '../../../src/trace/read';
import { contentLinks, contentLinkSteps } from '../../../src/analysis/credit';
import { PauseClock } from '../../../src/analysis/pauses';
import { rewardPlan } from '../../../src/analysis/credit-seeds';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { InProcessEngine } from '../../../src/engine/in-process-engine';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures');

/** A generated trace of about `n` events (bench/_generate.ts: agents, tool calls, hand-offs, stops), as otrace JSONL. */
function generated(n: number): LoadedTrace {
  const lines = [...generateRecords(n)].map((r) => JSON.stringify('event' in r ? r.event : r));
  return readTraceJsonl(`${lines.join('\n')}\n`);
}

/** Every phase and pause the steps yield, and what they return. */
function stepped(loaded: LoadedTrace, pauseAfterMs: number): { phases: AnalysisPhase[]; analysis: Analysis } {
  const steps = analysisSteps(loaded, { pauseAfterMs });
  const phases: AnalysisPhase[] = [];
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return { phases, analysis: step.value };
    phases.push(step.value);
  }
}

/** otrace fixtures, and real sessions of other formats (a Claude Code session with sub-agents, a Who&When record). */
function traces(): { name: string; loaded: LoadedTrace }[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith('.otrace.jsonl')) files.push(p);
    }
  };
  walk(FIXTURES);
  files.push(path.join(FIXTURES, 'claude-code-session', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'));
  const out = files.map((f) => ({ name: path.relative(FIXTURES, f), loaded: loadTraceFile(f) as LoadedTrace }));
  out.push({ name: 'generated 20,000 events', loaded: generated(20_000) });
  return out;
}

test('with a pause at every seam, the analysis equals the one made in one call', () => {
  const all = traces();
  assert.ok(all.length > 10, `${all.length} traces`);
  for (const { name, loaded } of all) {
    const { analysis } = stepped(loaded, 0);
    assert.deepEqual(JSON.parse(JSON.stringify(analysis)), JSON.parse(JSON.stringify(analyzeTrace(loaded))), name);
  }
});

test('the index, loops, stops and credit phases pause at their seams; pauses off, none comes', () => {
  const loaded = generated(20_000);
  assert.ok(loaded.trace.events.length >= 20_000);
  const { phases, analysis } = stepped(loaded, 0);
  const named = phases.filter((p) => p !== 'pause');
  assert.deepEqual(named, ['index', 'loops', 'stops', 'credit', 'blame', 'metrics']);
  /** Pauses between the end of `before` and the end of `phase`. */
  const pausesIn = (before: AnalysisPhase, phase: AnalysisPhase) => phases.slice(phases.indexOf(before) + 1, phases.indexOf(phase)).length;
  assert.ok(phases.indexOf('index') >= 7, `between the index's link passes (${phases.indexOf('index')} pauses before it)`);
  assert.ok(pausesIn('index', 'loops') >= 3, 'between the loop detectors');
  // finishing a loop reads each of its members (near-duplicate steps: 140k members in 128 loops at 1M events, 60-80 ms)
  assert.ok(analysis.loops.length >= 4, `${analysis.loops.length} loops`);
  assert.ok(pausesIn('index', 'loops') >= analysis.loops.length + 3, `between the loops finished (${pausesIn('index', 'loops')} pauses, ${analysis.loops.length} loops)`);
  assert.ok(pausesIn('loops', 'stops') >= 2, `between the stops' verdicts (${pausesIn('loops', 'stops')})`);
  assert.ok(pausesIn('stops', 'credit') >= 2, 'between the stages of the credit');
  assert.ok(pausesIn('blame', 'metrics') >= 7, `between the passes of the metrics and of its busy time (${pausesIn('blame', 'metrics')})`);
  assert.deepEqual(stepped(loaded, Infinity).phases, named);
});

test('the credit\'s backward pass pauses between its blocks of rewards (one pass was a block of 120 ms at 1M events), and gives the same credit', () => {
  const loaded = generated(140_000);
  const n = loaded.trace.events.length;
  const index = new TraceIndex(loaded);
  const blocks = rewardPlan(index).blocks.length;
  index.free();
  assert.ok(blocks >= 8, `${blocks} blocks of rewards`);
  const { phases, analysis } = stepped(loaded, 0);
  const credit = phases.slice(phases.indexOf('stops') + 1, phases.indexOf('credit')).length;
  // between the content links' stretches of 65,536 events, the seam before the pass, one between two blocks, the seam after it
  assert.equal(credit, Math.ceil(n / 65_536) - 1 + 1 + (blocks - 1) + 1, `pauses in the credit phase of ${n} events`);
  assert.deepEqual(analysis.credit.by_index, analyzeTrace(loaded).credit.by_index);
});

test('the content links found in stretches, pausing between them, equal those found in one scan (the tables the scan grows carried from stretch to stretch)', () => {
  const loaded = generated(20_000);
  const whole = new TraceIndex(loaded);
  const inOne = contentLinks(whole);
  const one = { start: [...inOne.start], links: inOne.start[whole.size] };
  const pairs = (l: typeof inOne, n: number) => Array.from({ length: l.start[n] }, (_, k) => `${l.from[k]}:${l.count[k]}`);
  const onePairs = pairs(inOne, whole.size);
  whole.free();
  for (const stretch of [1, 700, 4096]) {
    const index = new TraceIndex(loaded);
    const steps = contentLinkSteps(index, new PauseClock(0), stretch);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses++;
    const links = step.value;
    assert.equal(pauses, Math.ceil(index.size / stretch) - 1, `a pause between two stretches of ${stretch}`);
    assert.deepEqual([...links.start], one.start, `stretches of ${stretch}: each event's first link`);
    assert.deepEqual(pairs(links, index.size), onePairs, `stretches of ${stretch}: the links and their counts`);
    index.free();
  }
});


test("the engine answers at a pause inside a phase: a cancel there ends the analysis as cancelled before the phase's end; a newer load there supersedes it", async () => {
  const demo = { key: 'demo', version: -1, path: path.join(__dirname, '..', '..', '..', 'samples', 'demo.otrace.jsonl'), local: true };
  /** An engine whose every trace is analysed in phases with a pause at every seam; `atTurn` runs at each turn it gives to messages. */
  const engineWith = (atTurn: () => void) => new InProcessEngine({ progressiveFromEvents: 0, pauseAfterMs: 0, yieldToMessages: () => (atTurn(), new Promise<void>((r) => setImmediate(r))) });
  // a cancel at the second turn after the index: inside the loops phase (between two of its detectors)
  const phases: string[] = [];
  let turnsAfterIndex = -1;
  const engine: InProcessEngine = engineWith(() => {
    if (turnsAfterIndex >= 0 && ++turnsAfterIndex === 2) engine.cancel(demo.key);
  });
  const cancelled = (await engine.load(demo, (p) => {
    const done = /: (\w+) done$/.exec(p.message)?.[1];
    if (done) phases.push(done);
    if (done === 'index') turnsAfterIndex = 0;
  }))!;
  assert.deepEqual(phases, ['index'], 'the loops phase never ended');
  assert.equal(cancelled.analysisError, 'the analysis was cancelled');
  // a newer load at a pause inside the credit phase: the first answers undefined, the newer one analysed
  let newer: Promise<unknown> | undefined;
  let turnsAfterStops = -1;
  const engine2: InProcessEngine = engineWith(() => {
    if (turnsAfterStops >= 0 && ++turnsAfterStops === 2 && !newer) newer = engine2.load({ ...demo, version: 2, text: fs.readFileSync(demo.path, 'utf8') });
  });
  const first = await engine2.load(demo, (p) => {
    if (/: stops done$/.test(p.message)) turnsAfterStops = 0;
  });
  assert.equal(first, undefined, 'superseded at a pause');
  const analysed = (await newer) as { version: number; findings: unknown[]; analysisPending?: true };
  assert.equal(analysed.version, 2);
  assert.ok(analysed.findings.length > 0 && !analysed.analysisPending);
});
