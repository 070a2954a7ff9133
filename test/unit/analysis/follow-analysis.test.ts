/**
 * The analysis that follows appends equals a whole analysis of the same bytes. Random otrace JSONL
 * traces (work that repeats into loops of every kind, stops, rewards that set or change the outcome,
 * hand-offs, causes, now and then an event out of time order or an edge line to an earlier event)
 * are written to a file in random pieces cut at line ends (and now and then inside a line); the
 * file is followed as a session follows it (LiveFiles + GrowingLoad), and after each piece the
 * followed analysis (src/analysis/follow.ts) and the run summary made from it must equal
 * `analyzeTrace` and `runSummary` on a fresh read of the file's text. Named cases: an append that
 * completes a loop, adds a stop, changes the outcome or brings a late edge to an early event is
 * taken in as an append; an event earlier than the last one and a rewrite of the file analyse whole.
 * What each carried part keeps: follow-carries.test.ts.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { analyzeTrace, type Analysis } from '../../../src/analysis';
import { FollowAnalysis } from '../../../src/analysis/follow';
import { CUT_OFF_END } from '../../../src/analysis/stop-verdicts';
import { loadTrace } from '../../../src/trace/formats';
import { GrowingLoad } from '../../../src/trace/growing-load';
import '../../../src/trace/importers';
import { LiveFiles } from '../../../src/trace/live-files';
import type { MappingSource } from '../../../src/trace/mapping-choice';
import { nodeFileAccess } from '../../../src/trace/node-files';
import { busyOf, carryOf, Followed, followedDir, plain } from './followed';

const NO_MAPPINGS: MappingSource[] = [];

/** One random record's choices; {@link traceLines} makes a line of them. */
interface Choice {
  /** `repeat`: the last 1-3 events again (`back` says how many), new ids: loops of every kind to carry across appends. */
  kind: 'event' | 'edge' | 'repeat';
  agent: number;
  type: number;
  text: number;
  tool: number;
  back: number;
  late: boolean;
  value: number;
  /** 0: no duration_s; else the event's duration_s. */
  duration: number;
  /** Whether the event names another as its `parent` (`back` says which: an earlier one, or for the first tool a later one). */
  child: boolean;
}

const AGENTS = ['orchestrator', 'worker_a', 'worker_b', 'reviewer'];
const TYPES = ['delegate', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'return', 'message', 'stop', 'reward', 'aggregate', 'spawn'] as const;
const TEXTS = ['retry the same failing build', 'error: build failed', 'search Paris population', 'found 2.1 million', 'all done: the answer is 42', 'check the table again', 'plan: split the task', 'verified: tests pass', 'the fix is missing: please fix the bug', 'rm -rf dist', 'I cannot proceed without more information'];
const TOOLS = ['bash', 'search', 'edit'];
const EDGE_TYPES = ['causal', 'delegate', 'message', 'return'];

const choice: fc.Arbitrary<Choice> = fc.record({
  kind: fc.oneof({ weight: 30, arbitrary: fc.constant('event' as const) }, { weight: 1, arbitrary: fc.constant('edge' as const) }, { weight: 6, arbitrary: fc.constant('repeat' as const) }),
  agent: fc.nat(AGENTS.length - 1),
  type: fc.nat(TYPES.length - 1),
  text: fc.nat(TEXTS.length - 1),
  tool: fc.nat(TOOLS.length - 1),
  back: fc.nat(6),
  late: fc.oneof({ weight: 25, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  value: fc.constantFrom(0, 0.5, 1),
  duration: fc.constantFrom(0, 0, 0, 0.25, 0.5, 2, 6),
  child: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

/** The lines of a trace made of the choices: a header, then one line per record. */
function traceLines(choices: readonly Choice[]): string[] {
  const lines = [JSON.stringify({ trace_id: 'follow', task_id: 'random', system: 'test' })];
  let n = 0;
  const made: Record<string, unknown>[] = [];
  for (const c of choices) {
    if (c.kind === 'repeat') {
      // the same work again: a block of the last events with new ids and times (their causes and parents left out)
      for (const old of made.slice(-(1 + (c.back % 3)))) {
        const e: Record<string, unknown> = { ...old, id: `e${n}`, t: n };
        delete e.causes;
        delete e.parent;
        lines.push(JSON.stringify(e));
        made.push(e);
        n++;
      }
      continue;
    }
    if (c.kind === 'edge') {
      if (n < 2) continue;
      // to the latest event or one a little before it (a piece appended later may bring an edge to an event read before)
      const dst = Math.max(1, n - 1 - (c.text % 3));
      lines.push(JSON.stringify({ edge: { src: `e${Math.max(0, dst - 1 - c.back)}`, dst: `e${dst}`, type: EDGE_TYPES[(c.tool % 2) + 2 * (c.value > 0 ? 1 : 0)] } }));
      continue;
    }
    const type = TYPES[c.type];
    const agent = type === 'reward' ? 'judge' : AGENTS[c.agent];
    const e: Record<string, unknown> = { id: `e${n}`, t: c.late && n > 3 ? n - 3.5 : n, type, agent };
    if (type === 'tool_call' || type === 'tool_result') e.tool = TOOLS[c.tool];
    if (type === 'delegate' || type === 'spawn' || type === 'message') e.to = AGENTS[(c.agent + 1) % AGENTS.length];
    if (type === 'return') e.to = 'orchestrator';
    if (type === 'reward') Object.assign(e, { value: c.value, channel: 'team' });
    else if (type === 'stop') e.reason = c.value === 0 ? 'error' : 'task_complete';
    else e.content = TEXTS[c.text];
    if (n > 0 && c.back < 3 && type !== 'reward') e.causes = [`e${Math.max(0, n - 1 - c.back)}`];
    // durations and parents: busy time's intervals, overlapping, with holes where a parent's span holds its children
    if (c.duration > 0) e.duration_s = c.duration;
    // (a third of them a later event: a span exporter writes a child before its parent, which an append may bring)
    if (n > 0 && c.child) e.parent = c.tool === 0 ? `e${n + 1 + c.back}` : `e${Math.max(0, n - 1 - c.back)}`;
    // now and then a root span still open (a run that ended inside it)
    else if (c.duration === 6 && c.back === 0) e.open = true;
    lines.push(JSON.stringify(e));
    made.push(e);
    n++;
  }
  return lines;
}

describe('the analysis that follows appends', () => {
  it('equals a whole analysis of the same bytes after every piece appended (random traces, random cuts)', () => {
    const hows = { whole: 0, appended: 0, unchanged: 0 };
    /** Updates whose file was said to be written again, or no longer, taken as appends. */
    let flips = 0;
    /** Appends whose index carried the old links (index-links.ts), and those that made them whole. */
    const links = { appended: 0, whole: 0 };
    /** Run summaries that went on from the tallies of the last one (FollowAnalysis.summary). */
    let summariesCarried = 0;
    /** Appends whose busy time swept some union from one of the last one's cuts (busy-carry.ts). */
    let busyWentOn = 0;
    /** Appends that finished some loop from the last analysis's (loops/finished-loops.ts): the same loop, or one grown. */
    const loopsCarried = { reused: 0, grown: 0 };
    fc.assert(
      fc.property(fc.array(choice, { minLength: 1, maxLength: 60 }), fc.array(fc.record({ lines: fc.nat(12), inLine: fc.boolean(), abandonAfter: fc.option(fc.nat(7), { freq: 4 }), inProgress: fc.boolean() }), { minLength: 1, maxLength: 8 }), (choices, pieces) => {
        const text = `${traceLines(choices).join('\n')}\n`;
        const breaks: number[] = [];
        for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) breaks.push(k + 1);
        let line = Math.min(1, breaks.length - 1);
        let shown = breaks[line];
        const f = new Followed(text.slice(0, shown));
        f.check('first load');
        for (const piece of pieces) {
          line = Math.min(breaks.length - 1, line + piece.lines);
          let to = breaks[line];
          // now and then a write that ends inside a line (the rest comes with the next piece)
          if (piece.inLine && line + 1 < breaks.length) to = Math.floor((breaks[line] + breaks[line + 1]) / 2);
          f.append(text.slice(shown, to));
          shown = to;
          // now and then an update in phases ended early first (a newer load came): the next one must not count what it took in
          // and now and then the file is said to be still written, or no longer (its end is judged then): the flag flips between updates
          f.check(`after ${shown} of ${text.length} characters${piece.abandonAfter === null ? '' : `, an update ended after ${piece.abandonAfter} phases first`}${piece.inProgress ? ', still being written' : ''}`, piece.abandonAfter ?? undefined, piece.inProgress);
          hows[f.follow.last.how]++;
          if (f.follow.last.how === 'appended' && /being written/.test(f.follow.last.reason)) flips++;
          if (f.follow.last.how === 'appended' && f.follow.last.links) links[f.follow.last.links.how]++;
          if (f.follow.summarized!.from > 0) summariesCarried++;
          if (f.follow.last.how === 'appended' && (busyOf(f.follow)?.fromCuts ?? 0) > 0) busyWentOn++;
          const finished = f.follow.last.how === 'appended' ? carryOf(f.follow)?.loops : undefined;
          if (finished) for (const k of ['reused', 'grown'] as const) if (finished[k] > 0) loopsCarried[k]++;
          if (process.env.REASONS && f.follow.last.links) console.log('LINKS', f.follow.last.how, f.follow.last.links.reason.replace(/[0-9]+/g, 'N'));
        }
        f.append(text.slice(shown));
        f.check('whole text');
      }),
      // RUNS=400 SEED=n run it deeper by hand (REASONS=1 prints how each append's links were made)
      { numRuns: Number(process.env.RUNS ?? 60), seed: Number(process.env.SEED ?? 30) },
    );
    // the property covers each path, not only the whole analysis
    assert.ok(hows.appended > 0 && hows.whole > 0 && hows.unchanged > 0 && flips > 0, `each path taken: ${JSON.stringify({ ...hows, flips })}`);
    assert.ok(links.appended > 0 && links.whole > 0, `appends with the old links carried, and made whole: ${JSON.stringify(links)}`);
    assert.ok(summariesCarried > 0, 'run summaries that went on from the last one\'s tallies');
    assert.ok(busyWentOn > 0, 'appends whose busy time went on from the last one\'s cuts');
    assert.ok(loopsCarried.reused > 0 && loopsCarried.grown > 0, `appends that finished a loop from the last one's, the same or grown: ${JSON.stringify(loopsCarried)}`);
  });

  /** An event line. */
  const ev = (id: number, t: number, type: string, agent: string, more: Record<string, unknown> = {}) => JSON.stringify({ id: `e${id}`, t, type, agent, ...more });
  const header = JSON.stringify({ trace_id: 'cases', task_id: 'cases', system: 'test' });
  /** A worker calling a failing build, answered. */
  const start = [header, ev(0, 0, 'delegate', 'orchestrator', { to: 'w', content: 'build it' }), ...[1].flatMap((k) => [ev(k, k, 'tool_call', 'w', { tool: 'bash', content: 'make build' }), ev(k + 1, k + 1, 'tool_result', 'w', { tool: 'bash', content: 'error: build failed' })])];
  const lines = (ls: string[]) => `${ls.join('\n')}\n`;

  it('an event whose parent only a later append brings: its parent is that event now, as a whole analysis finds it (links made whole)', () => {
    // found by a fresh helper: the carried links kept the old event's parent unresolved, and the busy time differed (lane time 14 against 10)
    const f = new Followed(
      lines([
        header,
        ev(0, 1, 'stop', 'orchestrator', { reason: 'task_complete' }),
        ev(1, 2, 'tool_call', 'worker_a', { tool: 'bash' }),
        ev(2, 3, 'tool_result', 'reviewer', { tool: 'bash' }),
        ev(3, 7, 'stop', 'worker_b', { reason: 'task_complete', parent: 'e4' }),
      ]),
    );
    f.check('a stop naming e4, which no event carries yet');
    f.append(lines([ev(4, 11, 'return', 'worker_a', { to: 'orchestrator', causes: ['e0'] })]));
    f.check('e4 appended');
    assert.equal(f.follow.last.how, 'appended');
    assert.match(f.follow.last.links?.reason ?? '', /parent named/);
  });

  it("goes on with busy time from the last analysis's cuts where a cut holds: a new child cuts a hole in an old span of a lane the append has no event in", () => {
    const w = [0, 1, 2, 3].map((k) => ev(k, k, 'message', 'w', { duration_s: 0.5, content: `step ${k}` }));
    const x = [5, 6, 7, 8, 9].map((k) => ev(k, k + 0.5, 'tool_call', 'x', { tool: 'bash', duration_s: 0.25, content: `ls ${k}` }));
    const f = new Followed(lines([header, ...w, ev(4, 4, 'message', 'w', { duration_s: 8, content: 'work on it' }), ...x]));
    const before = f.check('two lanes').analysis.metrics.lane_time!;
    f.append(lines([ev(10, 10, 'tool_call', 'x', { parent: 'e4', tool: 'bash', duration_s: 1, content: 'ls -l' })]));
    const { analysis } = f.check("a child of w's old span");
    assert.equal(f.follow.last.how, 'appended');
    assert.ok((busyOf(f.follow)?.fromCuts ?? 0) > 0, 'some union swept from a cut');
    assert.ok(analysis.metrics.lane_time! < before + 1, `the hole the child cuts in w's span counts: ${before} -> ${analysis.metrics.lane_time}`);
  });

  it("goes on with busy time from no cut of a lane with holes (a span's pieces after a hole are not its interval: its time does not find them)", () => {
    const f = new Followed(
      lines([
        header,
        ev(0, 0, 'message', 'w', { duration_s: 10, content: 'plan the work' }),
        ev(1, 1, 'tool_call', 'x', { parent: 'e0', tool: 'bash', duration_s: 1, content: 'ls' }),
        ev(2, 3, 'tool_call', 'y', { parent: 'e0', tool: 'bash', duration_s: 1, content: 'ls -l' }),
        ev(3, 5, 'message', 'w', { duration_s: 0.5, content: 'note' }),
      ]),
    );
    f.check('a span of w with a child in x and one in y: its pieces [0, 1], [2, 3], [4, 10]');
    f.append(lines([ev(4, 11, 'message', 'w', { duration_s: 1, content: 'next' })]));
    f.check('a new event of w after the span');
    assert.equal(f.follow.last.how, 'appended');
  });

  it('takes in as an append a piece that completes a loop', () => {
    const f = new Followed(lines(start));
    assert.equal(f.check('one call').analysis.loops.length, 0, 'no loop yet');
    f.append(lines([3, 5, 7].flatMap((k) => [ev(k, k, 'tool_call', 'w', { tool: 'bash', content: 'make build' }), ev(k + 1, k + 1, 'tool_result', 'w', { tool: 'bash', content: 'error: build failed' })])));
    const { analysis } = f.check('four calls');
    assert.ok(analysis.loops.length > 0, 'a loop now');
    assert.equal(f.follow.last.how, 'appended');
  });

  it('takes in as an append a piece that adds a stop, and one that changes the outcome', () => {
    const f = new Followed(lines(start));
    f.check('start');
    f.append(lines([ev(5, 5, 'return', 'w', { to: 'orchestrator', content: 'done' }), ev(6, 6, 'stop', 'orchestrator', { reason: 'task_complete' })]));
    const stopped = f.check('a stop');
    assert.equal(f.follow.last.how, 'appended');
    assert.ok(stopped.analysis.stops.length > 0, 'the stop is judged');
    assert.equal(stopped.analysis.outcome.status, 'unknown');
    f.append(lines([ev(7, 7, 'reward', 'judge', { value: 0, channel: 'team' })]));
    const failed = f.check('a failing reward');
    assert.equal(f.follow.last.how, 'appended');
    assert.equal(failed.analysis.outcome.status, 'failure', 'the outcome changed');
    assert.deepEqual(Object.keys(failed.analysis.credit.events).length > 0, true, 'credit from the new outcome');
  });

  it('judges the end of the trace once the file is no longer being written (no stop yet while it is), from what it carries', () => {
    const f = new Followed(lines(start));
    f.check('start', undefined, true);
    f.append(lines([ev(5, 5, 'tool_call', 'w', { tool: 'bash', content: 'make build' })]));
    const running = f.check('appended while written', undefined, true).analysis;
    assert.equal(f.follow.last.how, 'appended');
    assert.deepEqual(running.stops.filter((s) => s.synthetic).map((s) => s.finding), ['ok'], 'no stop yet: no verdict');
    const ended = f.check('no longer written').analysis;
    assert.deepEqual([f.follow.last.how, f.follow.last.reason], ['appended', 'no new event or edge; the file is no longer being written: the end of the trace is judged']);
    assert.deepEqual(ended.stops.filter((s) => s.synthetic).map((s) => s.finding), ['no_stop'], 'never stopped');
    // and written again: no verdict on the end again
    f.append(lines([ev(6, 6, 'tool_result', 'w', { tool: 'bash', content: 'error: build failed' })]));
    const again = f.check('written again', undefined, true).analysis;
    assert.deepEqual([f.follow.last.how, f.follow.last.reason], ['appended', '1 new events, 0 new edges after the 4 read before; the file is being written again']);
    assert.deepEqual(again.stops.filter((s) => s.synthetic).map((s) => s.finding), ['ok']);
  });

  it('reuses the analysis when a piece adds no record (a write that ends inside a line) to a file being written', () => {
    const f = new Followed(lines(start));
    const before = f.check('start', undefined, true).analysis;
    const next = ev(5, 5, 'tool_call', 'w', { tool: 'bash', content: 'make build' });
    f.append(next.slice(0, 20));
    const same = f.check('half a line', undefined, true).analysis;
    assert.equal(f.follow.last.how, 'unchanged');
    assert.equal(same, before, 'the same analysis');
    f.append(`${next.slice(20)}\n`);
    f.check('the rest of the line', undefined, true);
    assert.equal(f.follow.last.how, 'appended');
  });

  it('judges the end again when a file no longer written comes to end (or no longer ends) in a cut-off line: no verdict about a cut-off end', () => {
    const f = new Followed(lines(start));
    const whole = f.check('start').analysis;
    assert.equal(whole.stops.at(-1)?.finding, 'no_stop', 'a finished trace without a stop');
    const next = ev(5, 5, 'tool_call', 'w', { tool: 'bash', content: 'make build' });
    f.append(next.slice(0, 20));
    const cut = f.check('half a line').analysis;
    assert.equal(f.follow.last.how, 'appended', f.follow.last.reason);
    assert.deepEqual([cut.stops.at(-1)?.finding, cut.stops.at(-1)?.message], ['ok', CUT_OFF_END]);
    f.append(`${next.slice(20)}\n`);
    const done = f.check('the rest of the line').analysis;
    assert.equal(done.stops.at(-1)?.finding, 'no_stop');
  });

  it('takes in as an append an edge to an event read before (the row of the event it ends at is mended: index-links.ts)', () => {
    const f = new Followed(lines(start));
    f.check('start');
    f.append(lines([JSON.stringify({ edge: { src: 'e0', dst: 'e2', type: 'causal' } })]));
    f.check('a late edge');
    assert.equal(f.follow.last.how, 'appended');
    // (a result stated to answer a delegation is paired with no call by a guess: its links are made whole)
    assert.match(f.follow.last.links?.reason ?? '', /e0 answers an old result \(e2\) paired otherwise/);
    f.append(lines([ev(5, 5, 'message', 'orchestrator', { to: 'w', content: 'hurry' }), JSON.stringify({ edge: { src: 'e1', dst: 'e3', type: 'delegate' } })]));
    f.check('an event and an edge between two events read before');
    assert.equal(f.follow.last.how, 'appended');
    assert.equal(f.follow.last.links?.how, 'appended', f.follow.last.links?.reason);
  });

  it('analyses whole when an appended event is earlier than the last one', () => {
    const f = new Followed(lines(start));
    f.check('start');
    f.append(lines([ev(9, 0.5, 'message', 'orchestrator', { to: 'w', content: 'hurry' })]));
    f.check('an event out of time order');
    assert.equal(f.follow.last.how, 'whole');
    assert.match(f.follow.last.reason, /time/);
  });

  // Readers that merge lines into events (a model call's records, a call and its result) hand out a
  // new event object for one that changes, never a changed one: the prefix's objects tell.
  const FIXTURES = path.join(__dirname, '..', '..', 'fixtures');
  // The Claude Code import completes an early event on each update here (event 0 or 1 is a new
  // object each time): analysed whole each time, still equal.
  for (const [name, folder, file, appends] of [
    ['a Claude Code session (with sub-agent files)', 'claude-code', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl', false],
    ['a Codex rollout', 'codex', 'rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl', true],
  ] as const) {
    it(`equals a whole analysis for ${name} revealed a few lines at a time`, () => {
      const dir = fs.mkdtempSync(path.join(followedDir(), 'fmt-'));
      fs.cpSync(path.join(FIXTURES, folder), dir, { recursive: true });
      const main = path.join(dir, file);
      const text = fs.readFileSync(main, 'utf8');
      const breaks: number[] = [];
      for (let k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', k + 1)) breaks.push(k + 1);
      fs.writeFileSync(main, text.slice(0, breaks[2]));
      const live = new LiveFiles();
      const growing = new GrowingLoad();
      const follow = new FollowAnalysis();
      const hows = { whole: 0, appended: 0, unchanged: 0 };
      // steps of 1 to 40 lines (a fixed walk: the same each run)
      for (let line = 2, k = 0; line < breaks.length - 1; k++) {
        const next = Math.min(breaks.length - 1, line + 1 + ((k * 7) % 40));
        fs.appendFileSync(main, text.slice(breaks[line], breaks[next]));
        line = next;
        for (const p of live.paths()) live.refresh(p);
        const loaded = growing.load(main, live, NO_MAPPINGS);
        const analysis = follow.update(loaded);
        hows[follow.last.how]++;
        const whole = analyzeTrace(loadTrace(fs.readFileSync(main, 'utf8'), main, nodeFileAccess));
        assert.deepEqual(plain(analysis), plain(whole), `${name} up to line ${line}: the followed analysis equals a whole analysis (${follow.last.how}: ${follow.last.reason})`);
      }
      if (appends) assert.ok(hows.appended > 0, `some steps taken in as appends: ${JSON.stringify(hows)}`);
      assert.ok(hows.whole + hows.appended + hows.unchanged > 3, 'several steps');
    });
  }

  // Near-duplicate steps (loops/similar-steps.ts): the scan is carried over appends (prefix-carry.ts `steps`) while what it read of the old events stays so.
  const STEP = 'please check the quarterly revenue table again and report the corrected totals for every region';
  const similar = (k: number) => `${STEP} ${['now', 'today', 'soon', 'again'][k % 4]}`;
  const stepLoops = (a: Analysis) => a.loops.filter((l) => l.match === 'similar');

  it('takes in as an append a piece that completes a loop of near-duplicate steps', () => {
    const f = new Followed(lines([header, ev(0, 0, 'message', 'planner', { to: 'writer', content: similar(0) }), ev(1, 1, 'message', 'writer', { content: 'ok' }), ev(2, 2, 'message', 'planner', { to: 'writer', content: similar(1) })]));
    assert.equal(stepLoops(f.check('two steps').analysis).length, 0, 'no loop yet');
    f.append(lines([ev(3, 3, 'message', 'writer', { content: 'ok' }), ev(4, 4, 'message', 'planner', { to: 'writer', content: similar(2) })]));
    const { analysis } = f.check('three steps');
    assert.equal(f.follow.last.how, 'appended');
    assert.equal(stepLoops(analysis).length, 1, 'the third step makes the loop');
    assert.deepEqual(stepLoops(analysis)[0].events, ['e0', 'e2', 'e4']);
  });

  it('reads the old steps again when an append makes a tool lane an agent of its own', () => {
    // `helper` answers tool calls only (a tool lane: its messages are no steps) until it calls a tool itself
    const f = new Followed(
      lines([header, ...[0, 1, 2].flatMap((k) => [ev(4 * k, 4 * k, 'tool_call', 'boss', { tool: 'sql', content: `select ${k}` }), ev(4 * k + 1, 4 * k + 1, 'tool_result', 'helper', { tool: 'sql', content: `${k} rows` }), ev(4 * k + 2, 4 * k + 2, 'message', 'helper', { to: 'boss', content: similar(k) }), ev(4 * k + 3, 4 * k + 3, 'tool_result', 'helper', { tool: 'sql', content: 'done' })])]),
    );
    assert.equal(stepLoops(f.check('a tool lane').analysis).length, 0, 'a tool lane says no steps');
    f.append(lines([ev(12, 12, 'tool_call', 'helper', { tool: 'sql', content: 'select 4' })]));
    const { analysis } = f.check('an agent of its own');
    assert.equal(f.follow.last.how, 'appended');
    assert.equal(stepLoops(analysis).length, 1, "helper's three messages are a loop now");
  });

  it('reads the old steps again when an append gives a lane to an agent the old steps were addressed to', () => {
    // steps to `auditor` (no lane yet: no receiver, one context with the steps to nobody) and to nobody, alternately
    const f = new Followed(lines([header, ev(0, 0, 'message', 'planner', { to: 'auditor', content: similar(0) }), ev(1, 1, 'message', 'planner', { content: similar(1) }), ev(2, 2, 'message', 'planner', { to: 'auditor', content: similar(2) })]));
    assert.equal(stepLoops(f.check('one context').analysis).length, 1, 'three near-duplicates in one context');
    f.append(lines([ev(3, 3, 'message', 'auditor', { to: 'planner', content: 'noted' })]));
    const { analysis } = f.check('two contexts');
    assert.equal(f.follow.last.how, 'appended');
    assert.equal(stepLoops(analysis).length, 0, 'the steps to auditor and to nobody are two contexts now');
  });

  it('reads the old hand-offs again when an append gives a lane to the agent an old hand-off was addressed to', () => {
    // hand-offs name their receivers (A and C have lanes); A's first word to B finds no lane for B yet: no hand-off
    const f = new Followed(
      lines([header, ev(0, 0, 'aggregate', 'C', { content: 'ready' }), ev(1, 1, 'delegate', 'A', { to: 'C', content: 'prepare the data' }), ev(2, 2, 'return', 'C', { to: 'A', content: 'prepared' }), ev(3, 3, 'message', 'A', { to: 'B', content: 'shall we go on' })]),
    );
    assert.equal(f.check('B has no lane').analysis.loops.filter((l) => l.kind === 'ping_pong').length, 0);
    // B answers: its lane makes A's old word a hand-off to B, the first of a ping-pong with no new content
    f.append(lines([4, 5, 6, 7, 8].map((k) => (k % 2 ? ev(k, k, 'message', 'A', { to: 'B', content: 'shall we go on' }) : ev(k, k, 'message', 'B', { to: 'A', content: 'not yet' })))));
    const { analysis } = f.check('B answers');
    assert.equal(f.follow.last.how, 'appended');
    const pingPong = analysis.loops.find((l) => l.kind === 'ping_pong');
    assert.deepEqual(pingPong?.events, ['e3', 'e4', 'e5', 'e6', 'e7', 'e8'], 'the ping-pong starts at the old hand-off');
  });

  it('goes on with a group chat\'s turns across an append (no hand-off names its receiver: each message answers the one before)', () => {
    const say = (k: number) => (k % 2 ? ev(k, k, 'message', 'B', { content: 'not yet' }) : ev(k, k, 'message', 'A', { content: 'shall we go on' }));
    const f = new Followed(lines([header, ...[0, 1, 2].map(say)]));
    f.check('three turns');
    f.append(lines([3, 4, 5].map(say)));
    const { analysis } = f.check('six turns');
    assert.equal(f.follow.last.how, 'appended');
    // the turn from e2 (old) to e3 (new) is a hand-off of the ping-pong
    assert.deepEqual(analysis.loops.find((l) => l.kind === 'ping_pong')?.events, ['e0', 'e1', 'e2', 'e3', 'e4']);
  });

  it('reads the old steps again when an append brings the event an old step named as its cause', () => {
    // e1 names e3 as its cause before e3 exists; e3 delegates to e1's agent: e1 then opens a delegated conversation (no step)
    // (boss and writer have lanes from the start: a new lane would make the scan start again anyway)
    const f = new Followed(lines([header, ev(9, 0, 'aggregate', 'boss', { content: 'start' }), ev(8, 0, 'aggregate', 'writer', { content: 'ready' }), ev(0, 0, 'message', 'planner', { to: 'writer', content: similar(0) }), ev(1, 1, 'message', 'planner', { to: 'writer', content: similar(1), causes: ['e3'] }), ev(2, 2, 'message', 'planner', { to: 'writer', content: similar(2) })]));
    assert.equal(stepLoops(f.check('three steps').analysis).length, 1);
    f.append(lines([ev(3, 3, 'delegate', 'boss', { to: 'planner', content: 'plan it' })]));
    const { analysis } = f.check('the cause arrives');
    assert.equal(f.follow.last.how, 'appended');
    assert.equal(stepLoops(analysis).length, 0, 'e1 opens a delegation now: two steps are no loop');
  });

  it('takes in as an append a piece that repeats a tool call read before (the calls\' grouping carried)', () => {
    const call = (k: number, args: string) => [ev(k, k, 'tool_call', 'w', { tool: 'bash', content: args }), ev(k + 1, k + 1, 'tool_result', 'w', { tool: 'bash', content: 'same output' })];
    const f = new Followed(lines([header, ...call(0, 'ls -la src'), ...call(2, 'cat notes.txt')]));
    assert.equal(f.check('two calls').analysis.loops.length, 0);
    f.append(lines(call(4, 'ls -la src')));
    const { analysis } = f.check('the first again');
    assert.equal(f.follow.last.how, 'appended');
    assert.deepEqual(analysis.loops.map((l) => [l.kind, l.events]), [['repeated_tool_call', ['e0', 'e1', 'e4', 'e5']]]);
  });

  it('asks again whether a repeated call got the same result once its results come (calls read before their results)', () => {
    const call = (k: number, args: string) => ev(k, k, 'tool_call', 'w', { tool: 'bash', content: args });
    const result = (k: number, out: string, of: number) => ev(k, k, 'tool_result', 'w', { tool: 'bash', content: out, causes: [`e${of}`] });
    // two calls side by side, their results not read yet: alike so far (calls without a result count as alike)
    const f = new Followed(lines([header, call(0, 'make test'), call(1, 'make test')]));
    assert.deepEqual(f.check('two calls waiting for their results').analysis.loops.map((l) => l.events), [['e0', 'e1']]);
    // their results differ: no loop (the agent learned something)
    f.append(lines([result(2, '3 failed', 0), result(3, '1 failed', 1)]));
    assert.deepEqual(f.check('their results came, different').analysis.loops.map((l) => l.events), []);
    assert.equal(f.follow.last.how, 'appended');
    // a third call gets the second's result again: a loop of the last two; after an edit, a new run
    f.append(lines([call(4, 'make test'), result(5, '1 failed', 4)]));
    assert.deepEqual(f.check('the same call and result again').analysis.loops.map((l) => l.events), [['e1', 'e3', 'e4', 'e5']]);
    f.append(lines([ev(6, 6, 'tool_call', 'w', { tool: 'edit', content: 'fix.py' }), call(7, 'make test'), result(8, '1 failed', 7)]));
    assert.deepEqual(f.check('after an edit').analysis.loops.map((l) => l.events), [['e1', 'e3', 'e4', 'e5']], 'a repeat after a state change starts a new run');
  });

  it('judges again whether the trace ended inside a loop when new content comes after it (the loop unchanged)', () => {
    const f = new Followed(lines(start));
    f.append(lines([3, 5, 7].flatMap((k) => [ev(k, k, 'tool_call', 'w', { tool: 'bash', content: 'make build' }), ev(k + 1, k + 1, 'tool_result', 'w', { tool: 'bash', content: 'error: build failed' })])));
    const inside = f.check('the trace ends inside the loop').analysis.loops;
    assert.deepEqual(inside.map((l) => [l.repetitions, l.unresolved]), [[4, true]]);
    // new content after it: the same loop, no longer the trace's end
    f.append(lines([ev(9, 9, 'message', 'w', { to: 'orchestrator', content: 'I cannot build it: the compiler is missing' })]));
    const after = f.check('new content after the loop').analysis.loops;
    assert.equal(f.follow.last.how, 'appended');
    assert.deepEqual(after.map((l) => [l.repetitions, l.unresolved, l.message.includes('ended inside')]), [[4, false, false]]);
    assert.deepEqual(after[0].events, inside[0].events);
  });

  it('counts the rows no agent wrote that were read before (the fingerprint table carries their count)', () => {
    // a placeholder row takes no credit, and is left out of its lane's repeated sequences, when the index counts such rows
    const f = new Followed(lines([header, ev(0, 0, 'message', 'w', { content: 'first step' }), ev(1, 1, 'tool_result', 'w', { tool: 'bash', content: 'waiting for output', kind: 'placeholder' }), ev(2, 2, 'message', 'w', { content: 'second step' })]));
    f.check('a placeholder');
    f.append(lines([ev(3, 3, 'message', 'w', { content: 'final answer: 42' })]));
    const { analysis } = f.check('after it');
    assert.equal(f.follow.last.how, 'appended');
    assert.equal(analysis.credit.by_index[1], 0, 'the placeholder takes no credit');
  });

  it('goes on with the run summary from the last one\'s tallies: the busiest of many agents as they change, recorded costs, failed calls, an agent\'s last words', () => {
    // 60 agents (past the 50 the summary lists: its busiest are tallied in a second pass), each saying one thing
    const agents = Array.from({ length: 60 }, (_, k) => ev(k, k, 'message', `a${k}`, { content: `hello from a${k}` }));
    const f = new Followed(lines([JSON.stringify({ trace_id: 'many', task_id: 'many', system: 'test', metadata: { models: ['m-1'] } }), ...agents]));
    f.check('60 agents');
    // the last agent grows busy (the busiest change), pays for model calls and fails a call; a new agent comes
    const busy = (k: number, agent: string) => [
      ev(k, k, 'message', agent, { kind: 'llm_call', content: 'think', cost: 0.25, usage: { input: 10, output: 5 } }),
      ev(k + 1, k + 1, 'tool_call', agent, { tool: 'bash', content: 'make' }),
      ev(k + 2, k + 2, 'tool_result', agent, { tool: 'bash', content: 'make: error', exit_code: 2 }),
      ev(k + 3, k + 3, 'message', agent, { content: `${agent} keeps going` }),
    ];
    f.append(lines([...busy(60, 'a59'), ...busy(64, 'a0'), ...busy(68, 'late')]));
    const { loaded, analysis } = f.check('busier agents, costs, a failed call');
    assert.equal(f.follow.last.how, 'appended');
    assert.deepEqual(f.follow.summarized, { from: 60, to: 72 }, 'the tallies fed the new events only');
    const s = f.follow.summary(loaded, analysis);
    assert.equal(s.agent_count, 61);
    assert.equal(s.agents.length, 50);
    assert.ok(s.agents.some((a) => a.name === 'late' && a.tokens.input === 10), 'the new busy agent listed, with its tokens');
    assert.deepEqual(s.cost && { usd: s.cost.usd, basis: s.cost.basis, models: s.cost.models }, { usd: 0.75, basis: 'recorded calls', models: ['m-1'] });
    assert.equal(s.failed_calls?.count, 3);
    f.append(lines([ev(72, 72, 'tool_result', 'a59', { tool: 'bash', content: 'make: error again', is_error: true })]));
    const again = f.check('one more failed call');
    assert.equal(f.follow.summary(again.loaded, again.analysis).failed_calls?.count, 4);
    assert.equal(s.failed_calls?.count, 3, 'a summary made before is not changed by the tallies going on');
  });

  it('analyses whole when the file is rewritten', () => {
    const f = new Followed(lines(start));
    f.check('start');
    fs.writeFileSync(f.file, lines([header, ev(0, 0, 'delegate', 'orchestrator', { to: 'w', content: 'something else' })]));
    f.check('rewritten');
    assert.equal(f.follow.last.how, 'whole');
  });

  it('analyses whole after release(), which gives back the memory kept for the next update', () => {
    const f = new Followed(lines(start));
    f.check('start');
    f.append(lines([ev(3, 3, 'message', 'w', { content: 'still at it' })]));
    f.check('an append');
    assert.equal(f.follow.last.how, 'appended');
    f.follow.release();
    f.append(lines([ev(4, 4, 'message', 'w', { content: 'and on' })]));
    f.check('after release');
    assert.equal(f.follow.last.how, 'whole');
  });
});
