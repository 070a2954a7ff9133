/**
 * One row per trace for `otrace analyze DIR|FILE...` (analyze-corpus.ts): what the trace holds and
 * what its analysis found (the run's final stop, loops, blame).
 */
import { analyzeTrace } from '../analysis';
import { stopInline, stopVerdict } from '../analysis/findings';
import type { LoadedTrace } from '../trace/model';
import { errorCount } from './common';

/** One trace's row. */
export interface CorpusRow {
  trace: string;
  format: string;
  events: number;
  agents: number;
  outcome: string;
  /** The finding at the run's final stop (ok, premature, delayed, no_stop), and its reason. */
  stop: string | null;
  stop_reason: string | null;
  /** What that stop ended (`run`, `turn`, `phase`), and the stop in words as the trace's mark says it (`turn ended (handed back)`, `task complete · run failed`). */
  stop_scope: string | null;
  stop_words: string | null;
  /** Its verdict in a word or two (`sound`, `run failed`, `unverified`, `premature`, `turn ended`…: findings.ts `stopVerdict`). */
  stop_verdict: string | null;
  loops: number;
  /** Loops the run ended inside. */
  unresolved_loops: number;
  blame: { agent: string; event: string; record: number; basis: string } | null;
  /** Errors found while reading. */
  errors: number;
}

/**
 * The row of one trace read.
 * @param name the trace's name (relative to the folder searched, or the path given).
 * @param outcome the run's outcome given by the caller (`--outcome`), else the trace's own.
 */
export function corpusRow(loaded: LoadedTrace, name: string, outcome?: 'failure' | 'success'): CorpusRow {
  const a = analyzeTrace(loaded, { outcome });
  const final = a.stops.length ? a.stops[a.stops.length - 1] : undefined;
  return {
    trace: name,
    format: loaded.format,
    events: loaded.trace.events.length,
    agents: new Set(loaded.trace.events.map((e) => e.agent)).size,
    outcome: a.outcome.status,
    stop: final?.finding ?? null,
    stop_reason: final?.reason ?? null,
    stop_scope: final?.scope ?? null,
    stop_words: final ? stopInline(final).replace(/^■ /, '') : null,
    stop_verdict: final ? stopVerdict(final) : null,
    loops: a.loops.length,
    unresolved_loops: a.loops.filter((l) => l.unresolved).length,
    blame: a.blame ? { agent: a.blame.agent, event: a.blame.event, record: a.blame.record, basis: a.blame.basis } : null,
    errors: errorCount(loaded),
  };
}
