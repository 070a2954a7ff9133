/**
 * The analysis of an orchestration trace: stop findings (the survey's decision O5), verification failures, loops,
 * message-level credit and blame, orchestration metrics and the topology.
 *
 * Pure TypeScript (no `vscode`): it runs in the extension host, a worker and the CLI. It reads the
 * trace's events, edges, rewards and metrics, never `trace.metadata` (ground-truth labels live there).
 * Methods, formulas and their sources: docs/analysis.md.
 */
import { PauseClock, type Pause } from './pauses';
import type { LoadedTrace } from '../trace/model';
import { findBlame, type BlameRule } from './blame';
import { creditSteps } from './credit';
import { loopSteps, type LoopOptions } from './loops';
import { metricSteps } from './metrics';
import { traceOutcome } from './outcome';
import { stopSteps, type StopOptions } from './stops';
import { guessTopology } from './topology';
import { TraceIndex } from './trace-index';
import { analyzePerTrace } from './per-trace';
import { severalTraces } from '../trace/trace-groups';
import { buildFindings } from './findings';
import type { Analysis, Outcome } from './types';
import { timeUnitOf } from '../trace/units';
import { eventFieldsOf, fieldsRecordTokens } from '../trace/event-fields';

export * from './types';
export { TraceIndex } from './trace-index';
export { buildFindings } from './findings';
export { BLAME_RULES, type BlameRule } from './blame';

export interface AnalysisOptions extends LoopOptions, StopOptions {
  /** Share of credit an event passes on to its causes (default 0.5). */
  lambda?: number;
  /**
   * The outcome when it is known from outside the trace (e.g. a benchmark that only holds failed
   * runs, or the user says so); overrides the trace's own signal. Never taken from trace.metadata.
   */
  outcome?: 'success' | 'failure';
  /** Blame rules to try (all by default); for the evaluation's ablation. */
  blameRules?: readonly BlameRule[];
  /** In phases ({@link analysisSteps}): a long phase pauses at its next seam after this many ms (default PAUSE_AFTER_MS, src/analysis/pauses.ts; 0: at every seam). */
  pauseAfterMs?: number;
}

/**
 * Analyzes a loaded trace. Never throws on bad content; an empty trace gives empty results.
 * Cost: O(n log n) for the time sort plus O(n * maxPeriod + links + content tokens).
 */
export function analyzeTrace(loaded: LoadedTrace, options: AnalysisOptions = {}): Analysis {
  const groups = severalTraces(loaded);
  if (groups) return analyzePerTrace(loaded, groups, (part) => analyzeOnce(part, options));
  return analyzeOnce(loaded, options);
}

/** {@link analyzeIndex} on an index made for it, whose memory is given back as soon as the results are made. */
function analyzeOnce(loaded: LoadedTrace, options: AnalysisOptions): Analysis {
  return runSteps(analysisStepsOf(loaded, options));
}

/** {@link analyzeTrace} on an existing index. */
export function analyzeIndex(index: TraceIndex, options: AnalysisOptions = {}): Analysis {
  return runSteps(indexSteps(index, options));
}

/**
 * A phase of the analysis that just ended (what {@link analysisSteps} yields between phases), or
 * `pause`: a seam inside a long phase (src/analysis/pauses.ts), no phase ended.
 */
export type AnalysisPhase = 'index' | 'loops' | 'stops' | 'credit' | 'blame' | 'metrics' | 'traces' | Pause;

/**
 * The analysis of {@link analyzeTrace}, in phases: the generator yields the name of each phase as
 * it ends (the caller may let other work in between: the engine's worker answers graph windows
 * there) and returns the same Analysis as {@link analyzeTrace}. A file of several traces is one
 * phase (`traces`). Ending the generator early (`return()`) frees the index it made.
 * Never throws on bad content; an exception of a phase propagates from `next()`.
 */
export function* analysisSteps(loaded: LoadedTrace, options: AnalysisOptions = {}): Generator<AnalysisPhase, Analysis, void> {
  const groups = severalTraces(loaded);
  if (groups) {
    const analysis = analyzePerTrace(loaded, groups, (part) => analyzeOnce(part, options));
    yield 'traces';
    return analysis;
  }
  return yield* analysisStepsOf(loaded, options);
}

/** The phases of one trace's analysis on an index made for it (freed when the generator ends, whichever way). */
function* analysisStepsOf(loaded: LoadedTrace, options: AnalysisOptions): Generator<AnalysisPhase, Analysis, void> {
  const index = yield* TraceIndex.build(loaded, undefined, new PauseClock(options.pauseAfterMs));
  try {
    yield 'index';
    return yield* indexSteps(index, options);
  } finally {
    index.free();
  }
}

/** The phases of the analysis on an existing index (the phases of {@link analysisSteps} after `index`). */
export function* indexSteps(index: TraceIndex, options: AnalysisOptions): Generator<AnalysisPhase, Analysis, void> {
  const outcome: Outcome =
    options.outcome === undefined
      ? traceOutcome(index)
      : { status: options.outcome, value: options.outcome === 'success' ? 1 : -1, source: 'given by the caller' };
  // a long phase pauses at its seams too (src/analysis/pauses.ts): the time counts again after each yield
  const clock = new PauseClock(options.pauseAfterMs);
  const loops = yield* loopSteps(index, options, clock);
  yield 'loops';
  clock.reset();
  const { stops, verification, bestStop, vStop } = yield* stopSteps(index, loops, outcome, options, clock);
  yield 'stops';
  clock.reset();
  // a failure no agent output caused (an API error) signs no credit: each message's share of what the run ended with, as without an outcome
  const creditOutcome: Outcome = outcome.notAgentFailure ? { status: 'unknown', value: null, source: `${outcome.source}: credit not signed by it` } : outcome;
  const { credit } = yield* creditSteps(index, creditOutcome, { lambda: options.lambda }, clock);
  yield 'credit';
  clock.reset();
  const blame = findBlame(index, outcome, { rules: options.blameRules });
  yield 'blame';
  clock.reset();
  const metrics = yield* metricSteps(index, clock);
  if (clock.due()) yield* clock.pause();
  const topology = guessTopology(index, metrics);
  yield 'metrics';

  const fields = eventFieldsOf(index.loaded);
  const idOf = fields.idReader();
  const timeUnit = timeUnitOf(index.loaded);
  const findings = buildFindings(stops, loops, blame, bestStop, idOf, { time: timeUnit, tokens: fieldsRecordTokens(fields) }, verification);
  return { time_unit: timeUnit, outcome, stops, verification, best_stop: bestStop, v_stop: vStop, loops, credit, blame, metrics, topology, findings };
}

/** Runs phases to the end on this thread, without pausing. */
function runSteps<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
