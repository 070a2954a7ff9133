/**
 * What the tests of a followed trace's analysis share (follow-analysis.test.ts, follow-carries.test.ts):
 * a followed file whose every load is checked against a whole analysis of its text, the carry a
 * followed analysis keeps, and prefixes of records analysed one after the other with one carry.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';
import { analyzeTrace, indexSteps, type Analysis } from '../../../src/analysis';
import type { BusyCarry } from '../../../src/analysis/busy-time';
import { FollowAnalysis } from '../../../src/analysis/follow';
import { PauseClock, withoutPauses } from '../../../src/analysis/pauses';
import { PrefixCarry } from '../../../src/analysis/prefix-carry';
import { runSummary } from '../../../src/analysis/run-summary';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import type { LoadedTrace } from '../../../src/trace/model';
import { FollowedFile } from '../trace/followed-file';

/** A value as its JSON says it (the lazily made parts of the credit are made by this). */
export const plain = (x: unknown) => JSON.parse(JSON.stringify(x)) as unknown;

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-follow-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

/** The folder of the followed files of this test process (removed after its tests). */
export function followedDir(): string {
  return DIR;
}

/** An otrace JSONL event line. */
export const ev = (id: number, t: number, type: string, agent: string, more: Record<string, unknown> = {}) => JSON.stringify({ id: `e${id}`, t, type, agent, ...more });
/** The trace fields' line. */
export const header = JSON.stringify({ trace_id: 'cases', task_id: 'cases', system: 'test' });
/** Lines as a file's text (each ended). */
export const lines = (ls: string[]) => `${ls.join('\n')}\n`;

/** The busy time's carry a followed analysis keeps (its private carry's metrics), to count the appends that went on from it. */
export function busyOf(follow: FollowAnalysis): BusyCarry | undefined {
  return carryOf(follow)?.metrics?.busy;
}

/** What a followed analysis carries to its next update (private: read by the tests that it was used). */
export function carryOf(follow: FollowAnalysis): PrefixCarry | undefined {
  return (follow as unknown as { carry?: PrefixCarry }).carry;
}

/** A followed trace file: pieces appended to it, each load checked against a whole analysis. */
export class Followed extends FollowedFile {
  readonly follow = new FollowAnalysis();

  constructor(first: string) {
    super(followedDir(), first);
  }

  /**
   * Loads what is on disk now; the followed analysis and its run summary must equal a whole analysis of the file's text.
   * @param abandonAfter first runs the update in phases and ends it after this many (a newer load came: the engine's worker), then updates.
   * @param inProgress the file is still being written (StopOptions.inProgress), for the update and the whole analysis.
   */
  check(what: string, abandonAfter?: number, inProgress = false): { loaded: LoadedTrace; analysis: Analysis } {
    const { loaded, fresh } = this.load();
    if (abandonAfter !== undefined) {
      const steps = this.follow.steps(loaded, inProgress);
      for (let k = 0; k < abandonAfter && !steps.next().done; k++);
      steps.return(undefined as never);
    }
    const analysis = this.follow.update(loaded, inProgress);
    const whole = analyzeTrace(fresh, { inProgress });
    assert.deepEqual(plain(analysis), plain(whole), `${what}: the followed analysis equals a whole analysis (${this.follow.last.how}: ${this.follow.last.reason})`);
    assert.deepEqual(plain(this.follow.summary(loaded, analysis)), plain(runSummary(fresh, whole)), `${what}: the same run summary (its tallies fed events ${JSON.stringify(this.follow.summarized)})`);
    return { loaded, analysis };
  }
}

/**
 * Analyses each prefix of `records` (cut after each count of `cuts`) with one carry, as the follow
 * does: `before` sees the carry and the index before each analysis, `after` the carry, the trace
 * and the analysis after it (committed).
 */
export function analyseEachCut(records: object[], cuts: number[], after: (carry: PrefixCarry, loaded: LoadedTrace, analysis: Analysis, cut: number) => void, before?: (carry: PrefixCarry) => void): void {
  const carry = new PrefixCarry();
  for (const cut of cuts) {
    const loaded = loadTrace(records.slice(0, cut).map((r) => JSON.stringify(r)).join('\n'), 'run.otrace.jsonl');
    const index = withoutPauses(TraceIndex.build(loaded, carry, new PauseClock(Infinity)));
    before?.(carry);
    const steps = indexSteps(index, {});
    let step = steps.next();
    while (!step.done) step = steps.next();
    carry.commit(index.size, index.memo, index.toolLanes, index.ownWordsTask);
    index.free();
    after(carry, loaded, step.value, cut);
  }
}
