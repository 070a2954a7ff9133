/**
 * The analysis of a trace that is followed as it grows (a running agent's log): each
 * {@link FollowAnalysis.update} gives what {@link analyzeTrace} gives on the trace as it is now,
 * working from what changed since the last update.
 *
 * How an update is made ({@link FollowAnalysis.last} says which, and why):
 * - `unchanged`: the trace has the same events, edges and trace-level fields as last time (the
 *   lines appended held no record yet, e.g. a write that ends inside a line), and it is still (or
 *   still not) being written: the last analysis. The same trace once its file is no longer being
 *   written (or is again) is taken as an append of nothing: its end is judged again (below).
 * - `appended`: the new events come after the old ones (the old ones are the same objects, at the
 *   same places: a reader hands out a new object for an event it completes from a later line, so
 *   a changed event is a new one; and none of the new ones is earlier in time than the last old
 *   one); new edges may point at old events (their rows of links are mended: index-links.ts):
 *   the analysis runs with what the old events gave
 *   carried over (prefix-carry.ts), and only the new events are scanned for it: the fingerprints
 *   and their table, the content links of credit, the tool calls' grouping by arguments, the
 *   near-duplicate steps' scan (while the lanes and tool lanes are the same and no old step named a
 *   cause that had not come yet), and the per-event text tests (completion claims, impasses, state
 *   changes, explicit answers, own words; agent output while the tool lanes are the same).
 *   The index's types, ids and lanes of the old events are carried too while the time order is the
 *   file order (prefix-carry.ts `IndexCarry`), and the memory of its columns is kept from one
 *   update to the next; so are its links into the old events and their receivers while they stand
 *   (index-links.ts says when: no new lane, no new edge that pairs an old result otherwise, no old
 *   id carried again, no stated answer to an old call paired by a guess; the credit's parents and the
 *   metrics' chains of the old events before the first whose links changed stand even then), the new events' links made from what the
 *   old ones left open (unresolved edges, undelivered hand-offs, unanswered calls). Still whole on
 *   each append, and why:
 *   - the index's tool lanes (a pass over the lanes' types: a new result can make a lane a tool lane);
 *   - credit propagation: an old event's credit depends on every event after it (the outcome's
 *     seed moves to the new final answer, reward baselines change), one typed-array pass backwards;
 *   - stop verdicts: a stop's verdict reads what came after it (rewards, spawned agents still at
 *     work, loops ending in its segment), and the outcome; the text tests they ask are carried;
 *   - the loop detectors but the two carried scans (repeated sequences, hand-off cycles, whether
 *     a repeated call's result changed, whether a loop is unresolved: the last new content moves);
 *   - blame and metrics (an old tool call's work ends at its result, which may be new; the
 *     critical path ends at the latest finish; busy time unions every lane's intervals).
 *   Whether the file is still being written (StopOptions.inProgress), and which files end in a
 *   cut-off line, are read by the stop verdicts alone: an update where either changed is made as an
 *   append too.
 * - `whole`: anything that reaches back (a rewrite, an event changed or moved, an event earlier than
 *   the last one, several traces in the file, another format) or the first
 *   load: a whole analysis, whose per-event results are carried to the next update.
 * Every path gives the same result as a whole analysis of the same trace
 * (test/unit/analysis/follow-analysis.test.ts).
 */
import type { LoadedTrace } from '../trace/model';
import type { TraceEdge, TraceEvent } from '../trace/schema';
import { soleTraceId } from '../trace/trace-groups';
import { isNotedCopy, notedSharedPrefix } from '../trace/shared-prefix';
import { analyzeTrace, indexSteps, type AnalysisOptions, type AnalysisPhase } from './index';
import { PrefixCarry } from './prefix-carry';
import { TraceIndex } from './trace-index';
import { eventTime } from './time-order';
import { PauseClock } from './pauses';
import type { Analysis } from './types';
import { RunTallies, runSummary, type RunSummary } from './run-summary';

/** How an update was made (see the module's comment). */
export type FollowHow = 'whole' | 'appended' | 'unchanged';

/** What an update keeps of the trace it analysed, to tell what changed next time. */
interface Seen {
  loaded: LoadedTrace;
  /** The events and edges as they were (a growing reader may add to the same lists): a reader's copies, or copies of our own (never changed). */
  events: readonly TraceEvent[];
  edges: readonly TraceEdge[];
  /** The trace-level fields but events and edges, as JSON. */
  fields: string;
  /** The latest time of an event (`t`, 0 when not a finite number, as the time order reads it). */
  lastTime: number;
  analysis: Analysis;
  /** Whether the trace was still being written (StopOptions.inProgress) when analysed. */
  inProgress: boolean;
  /** Which of its files ended in a cut-off line ({@link cutOffKey}): the stop verdicts read it too. */
  cutOff: string;
  /** The one `trace_id` its events carry (undefined: none; null: several, trace-groups.ts `soleTraceId`). */
  traceId: string | undefined | null;
}

/** The analysis of one followed trace (one per session); see the module's comment. */
export class FollowAnalysis {
  private seen: Seen | undefined;
  /** Per-event results of the last analysis, while they can go on (prefix-carry.ts). */
  private carry: PrefixCarry | undefined;
  /** How the last update was made, and why; `links`: how its index's links were made (index-links.ts), when it made an index. */
  last: { how: FollowHow; reason: string; links?: TraceIndex['linksMade'] } = { how: 'whole', reason: 'nothing analysed yet' };
  /** How the index of the update in progress made its links. */
  private links: TraceIndex['linksMade'] | undefined;
  /** The run summary's tallies of the events summarized so far, while the next update can go on from them ({@link summary}). */
  private tallies: RunTallies | undefined;
  /** The events the last {@link summary} fed its tallies: `from` 0 when it made them whole. */
  summarized: { from: number; to: number } | undefined;

  /** @param options the analysis's options (the same for every update). */
  constructor(private readonly options: AnalysisOptions = {}) {}

  /**
   * The analysis of `loaded`, equal to `analyzeTrace(loaded, { ...options, inProgress })`.
   * @param inProgress the trace's files are still being written (see StopOptions.inProgress).
   * @throws what the analysis throws (a bug: it never throws on bad content); the next update is then whole.
   */
  update(loaded: LoadedTrace, inProgress = false): Analysis {
    const steps = this.steps(loaded, inProgress);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * {@link update} in phases: yields each phase's name as it ends (the engine's worker answers
   * other messages there) and returns the analysis. Ended early (`return()`), it keeps nothing of
   * the last update (what was seen is forgotten as it starts): the next update is whole, so a scan
   * the carry holds that took in part of the new events is never read again.
   * @throws what the analysis throws, as {@link update} does.
   */
  *steps(loaded: LoadedTrace, inProgress = false): Generator<AnalysisPhase, Analysis, void> {
    const seen = this.seen;
    const { sameFields, ...change }: { how: FollowHow; reason: string; sameFields?: boolean } = !seen ? { how: 'whole', reason: 'the first load' } : changeOf(seen, loaded);
    // the summary's tallies go on over an append that keeps the trace-level fields (the recorded costs read them)
    if (change.how === 'whole' || sameFields === false) this.tallies = undefined;
    // (read only when the file is not being written: a file being written has no verdict at its end either way)
    const cutOff = inProgress ? '' : cutOffKey(loaded);
    if (seen && (seen.inProgress !== inProgress || seen.cutOff !== cutOff) && change.how !== 'whole') {
      // only the stop verdicts read the flag and the cut-off files, and they are judged whole on every update: the carry stands (none of it reads them)
      const flag =
        seen.inProgress !== inProgress
          ? inProgress
            ? 'the file is being written again'
            : 'the file is no longer being written: the end of the trace is judged'
          : 'a file now ends (or no longer ends) in a cut-off line: the end of the trace is judged again';
      Object.assign(change, { how: 'appended', reason: change.how === 'unchanged' ? `no new event or edge; ${flag}` : `${change.reason}; ${flag}` });
    }
    this.seen = undefined;
    this.links = undefined;
    const options = { ...this.options, inProgress };
    // (the trace ids of an append's new events alone: a pass over a million events' ids took 10-15 ms)
    const traceId = change.how === 'unchanged' ? seen!.traceId : change.how === 'appended' && seen!.traceId !== null ? soleTraceId(loaded.trace.events, seen!.events.length, seen!.traceId) : soleTraceId(loaded.trace.events);
    try {
      let analysis: Analysis;
      if (change.how === 'unchanged') analysis = seen!.analysis;
      else if (traceId === null) {
        // a second trace in the file tags the events of the first (trace-groups.ts): each is analysed on its own, whole
        this.dropCarry();
        this.tallies = undefined;
        analysis = analyzeTrace(loaded, options);
        yield 'traces';
        Object.assign(change, { how: 'whole', reason: `${change.reason}; several traces in the file: each analysed whole` });
      } else if (change.how === 'appended' && this.carry) analysis = yield* this.analyze(loaded, this.carry, options);
      else {
        if (change.how === 'appended') Object.assign(change, { how: 'whole', reason: `${change.reason}; nothing carried from the last analysis` });
        this.dropCarry();
        analysis = yield* this.analyze(loaded, (this.carry = new PrefixCarry()), options);
      }
      this.last = this.links ? { ...change, links: this.links } : change;
      const events = loaded.trace.events;
      const since = change.how === 'appended' ? seen!.events.length : 0;
      const latest = Math.max(since > 0 ? seen!.lastTime : -Infinity, lastTime(events, since));
      this.seen = { loaded, events: keptList(events), edges: keptList(loaded.trace.edges), fields: fieldsOf(loaded), lastTime: latest, analysis, inProgress, cutOff, traceId };
      return analysis;
    } catch (err) {
      this.dropCarry();
      this.tallies = undefined;
      this.last = { how: 'whole', reason: `the analysis failed: ${(err as Error).message}` };
      throw err;
    }
  }

  /** Forgets the carry and gives back the memory it keeps (a new analysis would take its own). */
  private dropCarry(): void {
    this.carry?.free();
    this.carry = undefined;
  }

  /**
   * Gives back the memory kept for the next update (the trace is no longer followed, or no longer
   * written); the next update is then whole.
   */
  release(): void {
    this.dropCarry();
    this.seen = undefined;
    this.tallies = undefined;
  }

  /**
   * The run summary of the trace the last update analysed, equal to `runSummary(loaded, analysis)`:
   * its tallies go on from the events summarized after an earlier update while the updates since
   * were appends that kept the trace-level fields (a pass over the new events, not over all: 250-400
   * ms at 1M events), else are made whole. Any other trace or analysis is summarized whole.
   * @param loaded the trace of the last update; @param analysis what it returned.
   */
  summary(loaded: LoadedTrace, analysis: Analysis): RunSummary {
    if (this.seen?.loaded !== loaded || this.seen.analysis !== analysis) {
      this.summarized = { from: 0, to: loaded.trace.events.length };
      return runSummary(loaded, analysis);
    }
    this.tallies ??= new RunTallies();
    this.summarized = { from: this.tallies.fed, to: loaded.trace.events.length };
    return runSummary(loaded, analysis, {}, this.tallies);
  }

  /** The analysis of one trace with the carry, in phases: read for the positions it holds, filled for the others, committed when done. */
  private *analyze(loaded: LoadedTrace, carry: PrefixCarry, options: AnalysisOptions): Generator<AnalysisPhase, Analysis, void> {
    const index = yield* TraceIndex.build(loaded, carry, new PauseClock(options.pauseAfterMs));
    this.links = index.linksMade;
    try {
      yield 'index';
      const analysis = yield* indexSteps(index, options);
      carry.commit(index.size, index.memo, index.toolLanes, index.ownWordsTask);
      return analysis;
    } finally {
      index.free();
    }
  }
}

/** What changed from `seen` to `loaded`, and why it can or cannot be taken in as an append. */
function changeOf(seen: Seen, loaded: LoadedTrace): { how: FollowHow; reason: string; sameFields?: boolean } {
  const whole = (reason: string) => ({ how: 'whole' as const, reason });
  if (loaded.format !== seen.loaded.format) return whole(`the format changed (${seen.loaded.format} -> ${loaded.format})`);
  const events = loaded.trace.events;
  const edges = loaded.trace.edges;
  const old = seen.events;
  if (events.length < old.length || edges.length < seen.edges.length) return whole('events or edges went away (the file was rewritten)');
  // pointer comparisons (7-20 ms at 1M: not made for what a growing read noted the same, src/trace/shared-prefix.ts): a reader hands out a new object for an event that changes (src/trace/formats.ts)
  for (let i = notedSharedPrefix(events, old, old.length); i < old.length; i++) if (events[i] !== old[i]) return whole(`event ${i} changed or moved since it was read (the reader completed it from a later line, or the file was rewritten)`);
  for (let i = notedSharedPrefix(edges, seen.edges, seen.edges.length); i < seen.edges.length; i++) if (edges[i] !== seen.edges[i]) return whole(`edge ${i} changed or moved since it was read`);
  const sameFields = fieldsOf(loaded) === seen.fields;
  if (events.length === old.length && edges.length === seen.edges.length && sameFields) return { how: 'unchanged', reason: 'no new event or edge, the same trace-level fields' };
  for (let i = old.length; i < events.length; i++) {
    if (eventTime(events[i].t) < seen.lastTime) return whole(`event ${events[i].id} (time ${eventTime(events[i].t)}) is earlier than the last one before it (${seen.lastTime}): the time order changes`);
  }
  // the trace-level fields (rewards, metrics, totals) are read by the analysis of every update, never carried
  return { how: 'appended', sameFields, reason: `${events.length - old.length} new events, ${edges.length - seen.edges.length} new edges after the ${old.length} read before${sameFields ? '' : '; new trace-level fields'}` };
}

/** A list to compare the next read with: a reader's copy as it is (nothing changes it unnoted, and the next read's note is against it), any other list copied. */
function keptList<T>(list: readonly T[]): readonly T[] {
  return isNotedCopy(list) ? list : list.slice();
}

/** The files of a trace that end in a cut-off line (the readers' `unterminated` problems; '' the opened file), as one key. */
function cutOffKey(loaded: LoadedTrace): string {
  return JSON.stringify(loaded.problems.filter((p) => p.unterminated).map((p) => p.file ?? '').sort());
}

/** The latest time of the events from `from` on (-Infinity for none). */
function lastTime(events: readonly TraceEvent[], from: number): number {
  let last = -Infinity;
  for (let i = from; i < events.length; i++) last = Math.max(last, eventTime(events[i].t));
  return last;
}

/** The trace's own fields (but its events and edges) as JSON, to see whether they changed. */
function fieldsOf(loaded: LoadedTrace): string {
  const { events: _events, edges: _edges, ...fields } = loaded.trace;
  return JSON.stringify(fields);
}
