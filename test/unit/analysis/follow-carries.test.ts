/**
 * What a followed trace's analysis carries from one append to the next, part by part: the index's
 * memory, columns and links, the metrics, the credit per event and the credit's parents, and the
 * stop analysis's sweeps: each carried part gives what the whole analysis gives (the followed
 * analysis as a whole is judged in follow-analysis.test.ts), and each is made again when what it
 * read changed.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { analyzeTrace, type Analysis } from '../../../src/analysis';
import { Arena } from '../../../src/analysis/arena';
import { PrefixCarry } from '../../../src/analysis/prefix-carry';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { loadTrace } from '../../../src/trace/formats';
import '../../../src/trace/importers';
import type { LoadedTrace } from '../../../src/trace/model';
import { analyseEachCut, carryOf, ev, Followed, header, lines, plain } from './followed';

describe("the stop analysis's sweeps of a growing trace", () => {
  it("goes on with the stop analysis's sweeps from where the last one stopped, unless what they read changed: the tool lanes, a cause carried later, a stop earlier than the sweep", () => {
    const verification = (a: Analysis) => a.verification.map((v) => v.event);
    // `checker` (a reviewer by name) answers tool calls only: a tool lane, whose critique is no agent's verdict
    const tool = new Followed(lines([header, ev(0, 0, 'tool_call', 'boss', { tool: 'lint', content: 'lint src' }), ev(1, 1, 'tool_result', 'checker', { tool: 'lint', content: '3 warnings' }), ev(2, 2, 'tool_result', 'checker', { tool: 'lint', content: 'ok' }), ev(3, 3, 'message', 'checker', { to: 'boss', content: 'the fix is missing: please fix the bug' })]));
    assert.deepEqual(verification(tool.check('a tool lane').analysis), []);
    const sweeps = new Map(carryOf(tool.follow)!.sweeps);
    // it calls a tool: an agent of its own, whose critique nothing approved after it
    tool.append(lines([ev(4, 4, 'tool_call', 'checker', { tool: 'lint', content: 'lint again' }), ev(5, 5, 'message', 'boss', { content: 'shipping it' })]));
    const agent = verification(tool.check('an agent of its own').analysis);
    assert.deepEqual([tool.follow.last.how, agent.length > 0], ['appended', true]);
    // the sweeps that read the events alone went on (the same state, 6 positions read now); those that read the tool lanes were made again
    const kept = carryOf(tool.follow)!.sweeps;
    assert.deepEqual(['runStops', 'stateChanges', 'reviews'].map((name) => [name, kept.get(name) === sweeps.get(name), kept.get(name)?.swept]), [['runStops', true, 6], ['stateChanges', true, 6], ['reviews', false, 6]]);

    // `helper` answers tool calls (a tool lane) and twice says it cannot go on: no agent's impasse until it calls a tool itself
    const stuck = 'I cannot proceed without more information';
    const impasse = new Followed(lines([header, ev(0, 0, 'tool_call', 'boss', { tool: 'q', content: 'query' }), ...[1, 2].map((k) => ev(k, k, 'tool_result', 'helper', { tool: 'q', content: `rows ${k}` })), ev(3, 3, 'message', 'helper', { content: stuck }), ev(4, 4, 'message', 'boss', { content: 'the file is a.txt' }), ev(5, 5, 'message', 'helper', { content: stuck }), ...[6, 7].map((k) => ev(k, k, 'tool_result', 'helper', { tool: 'q', content: `rows ${k}` }))]));
    const delayed = (a: Analysis) => a.stops.some((st) => st.modes.includes('delayed'));
    assert.equal(delayed(impasse.check('a tool lane says it is stuck').analysis), false);
    impasse.append(lines([ev(8, 8, 'tool_call', 'helper', { tool: 'q', content: 'query again' }), ev(9, 9, 'message', 'boss', { content: 'try again' })]));
    const repeated = delayed(impasse.check('an agent said it twice').analysis);
    assert.deepEqual([impasse.follow.last.how, repeated], ['appended', true]);

    // the run's answer: the last answer statement; an old one becomes a span that encloses later work (a container: no statement), or an assignment once its cause comes
    const answerOf = (a: Analysis) => a.stops.map((st) => st.done_at ?? '').join() + a.best_stop?.event;
    const container = new Followed(lines([header, ev(0, 0, 'message', 'user', { content: 'what is the capital of France' }), ev(1, 1, 'message', 'solver', { content: 'the answer is Paris' }), ev(2, 2, 'aggregate', 'solver', { duration_s: 5, content: 'the answer is Lyon' }), ev(3, 3, 'message', 'critic', { content: 'checking it' })]));
    const before = answerOf(container.check('the last statement is Lyon').analysis);
    container.append(lines([ev(4, 4, 'tool_call', 'solver', { parent: 'e2', tool: 'search', content: 'capital of France' }), ev(5, 5, 'message', 'critic', { content: 'checked' })]));
    const after = answerOf(container.check('Lyon is a span around later work').analysis);
    assert.deepEqual([container.follow.last.how, before === after], ['appended', false]);
    // the solver's answer names as its cause a delegation written later: then it opens the delegated conversation (an assignment: no answer)
    const opening = new Followed(lines([header, ev(0, 0, 'message', 'user', { content: 'what is six times seven' }), ev(1, 1, 'message', 'solver', { causes: ['e9'], content: 'the answer is 42' }), ev(2, 2, 'message', 'critic', { content: 'checking it' })]));
    const answered = answerOf(opening.check('an answer').analysis);
    opening.append(lines([ev(9, 3, 'delegate', 'boss', { to: 'solver', content: 'solve it' }), ev(10, 4, 'message', 'critic', { content: 'checked' })]));
    const assigned = answerOf(opening.check('an assignment').analysis);
    assert.deepEqual([opening.follow.last.how, answered === assigned], ['appended', false]);

    // the same lane claims completion twice, another agent between: a termination signal repeated, once it is an agent; and not once its first claim opens a delegated conversation
    const done = 'the task is complete';
    const claims = new Followed(lines([header, ev(0, 0, 'tool_call', 'boss', { tool: 'q', content: 'query' }), ...[1, 2].map((k) => ev(k, k, 'tool_result', 'helper', { tool: 'q', content: `rows ${k}` })), ev(3, 3, 'message', 'helper', { content: done }), ev(4, 4, 'message', 'boss', { content: 'the file is a.txt' }), ev(5, 5, 'message', 'helper', { content: done }), ...[6, 7].map((k) => ev(k, k, 'tool_result', 'helper', { tool: 'q', content: `rows ${k}` }))]));
    assert.equal(delayed(claims.check('a tool lane claims completion').analysis), false);
    claims.append(lines([ev(8, 8, 'tool_call', 'helper', { tool: 'q', content: 'query again' }), ev(9, 9, 'message', 'boss', { content: 'try again' })]));
    const signalled = delayed(claims.check('an agent claimed it twice').analysis);
    assert.deepEqual([claims.follow.last.how, signalled], ['appended', true]);
    const opens = new Followed(lines([header, ev(0, 0, 'message', 'user', { content: 'sum the numbers' }), ev(1, 1, 'message', 'solver', { causes: ['e9'], content: done }), ev(2, 2, 'message', 'critic', { content: 'ok' }), ev(3, 3, 'message', 'solver', { content: done }), ev(4, 4, 'message', 'critic', { content: 'ok then' })]));
    assert.equal(delayed(opens.check('two claims').analysis), true);
    opens.append(lines([ev(9, 5, 'delegate', 'boss', { to: 'solver', content: 'sum them' }), ev(10, 6, 'message', 'critic', { content: 'fine' })]));
    const one = delayed(opens.check('the first opens a delegated conversation').analysis);
    assert.deepEqual([opens.follow.last.how, one], ['appended', false]);

    // a reviewer's critique names as its cause a delegation written later: then it opens the delegated conversation (an assignment, no verdict)
    const cause = new Followed(lines([header, ev(0, 0, 'message', 'boss', { content: 'write the parser' }), ev(1, 1, 'message', 'reviewer', { causes: ['e9'], content: 'the fix is missing: please fix the bug' }), ev(2, 2, 'message', 'boss', { content: 'on it' })]));
    assert.ok(verification(cause.check('a critique').analysis).length > 0, 'an uncleared critique');
    cause.append(lines([ev(9, 3, 'delegate', 'boss', { to: 'reviewer', content: 'review the parser' }), ev(10, 4, 'message', 'boss', { content: 'done' })]));
    const assignment = verification(cause.check('an assignment').analysis);
    assert.deepEqual([cause.follow.last.how, assignment], ['appended', []]);

    // w's run stops while x, which it spawned, is at work (premature); x returns after: the sweep of open spawns read past w's stop
    const spawns = new Followed(lines([header, ev(0, 0, 'spawn', 'boss', { to: 'w', content: 'start w' }), ev(1, 1, 'spawn', 'w', { to: 'x', content: 'start x' }), ev(2, 2, 'tool_call', 'x', { tool: 'bash', content: 'make' }), ev(3, 3, 'stop', 'w', { reason: 'task_complete' }), ev(4, 4, 'return', 'x', { to: 'w', content: 'x done' }), ev(5, 5, 'message', 'boss', { content: 'go on' })]));
    const premature = (a: Analysis) => a.stops.filter((st) => st.finding === 'premature').map((st) => st.event);
    assert.deepEqual(premature(spawns.check('w stopped early').analysis), ['e3']);
    spawns.append(lines([ev(6, 6, 'message', 'boss', { content: 'and on' })]));
    const still = premature(spawns.check('an append').analysis);
    assert.deepEqual([spawns.follow.last.how, still], ['appended', ['e3']]);
  });
});

describe('the memory of a followed trace\'s index', () => {
  /** A generated trace of `n` messages (an index of it reserves 256 bytes per event: from 4,096 events a chunk of 1 MiB or more, detached when freed). */
  const messages = (n: number): LoadedTrace => loadTrace(Array.from({ length: n }, (_, k) => JSON.stringify({ id: `m${k}`, t: k, type: 'message', agent: k % 3 ? 'a' : 'b', content: `step ${k}` })).join('\n'), 'messages.otrace.jsonl');

  it('is kept by the carry from one index to the next (its pages not given back and taken again at each append), and given back by free()', () => {
    const carry = new PrefixCarry();
    const first = new TraceIndex(messages(6000), carry);
    // (a column of the arena's: the fingerprints go on in the carry's own table)
    const buffer = first.memo.agentOutput.buffer;
    // (where the runtime detaches buffers: Node 22 and later)
    const detaches = typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === 'function';
    const held = buffer.byteLength;
    first.free();
    assert.equal(buffer.byteLength, held, 'not shrunk when the index is done');
    const second = new TraceIndex(messages(6100), carry);
    assert.equal(second.memo.agentOutput.buffer, buffer, 'the next index takes the same memory');
    assert.deepEqual([...second.fingerprints.subarray(0, 3)], [0, 1, 2], 'its views hold their own values');
    second.free();
    carry.free();
    if (detaches) assert.equal(buffer.byteLength, 0, 'given back by the carry');
    const alone = new TraceIndex(messages(6000));
    const own = alone.memo.agentOutput.buffer;
    alone.free();
    if (detaches) assert.equal(own.byteLength, 0, 'an index of its own gives its memory back at once');
  });
});

describe("the tables a followed trace's carry keeps", () => {
  /** Every typed array the carry reaches through its objects and maps (not lists, not the arena's scratch), by the path to it. */
  const tablesOf = (x: unknown, path: string, out = new Map<string, ArrayBufferView>(), seen = new Set<object>()): Map<string, ArrayBufferView> => {
    if (typeof x !== 'object' || x === null || seen.has(x) || x instanceof Arena || Array.isArray(x)) return out;
    seen.add(x);
    if (ArrayBuffer.isView(x)) return out.set(path, x);
    for (const [k, v] of x instanceof Map ? x.entries() : Object.entries(x)) tablesOf(v, `${path}.${String(k)}`, out, seen);
    return out;
  };
  /** A run of `n` events of three agents: tool calls and their results, messages, a delegation now and then, a reward every 400 events. */
  const run = (n: number) =>
    Array.from({ length: n }, (_, k) => {
      const agent = ['planner', 'coder', 'tester'][(k >> 2) % 3];
      if (k % 400 === 399) return { id: `e${k}`, t: k, type: 'reward', agent: 'judge', value: (k % 7) / 7 };
      if (k % 50 === 0) return { id: `e${k}`, t: k, type: 'delegate', agent: 'planner', to: 'coder', content: `task ${k % 9}: fix the build` };
      const type = ['tool_call', 'tool_result', 'message'][k % 3];
      return { id: `e${k}`, t: k, type, agent, tool: type === 'message' ? undefined : 'bash', content: `${type} ${k % 11} of the build step ${k % 13}`, duration_s: (k % 5) / 4 };
    });

  it('are made with room for the appends to come: an append after the first analysis copies none of them (each copy was external memory that started a full collection)', () => {
    const records = run(6000);
    const made = new Map<string, ArrayBufferView>();
    const copied: string[] = [];
    analyseEachCut(records, [5000, 5100, 5200], (carry, _loaded, _analysis, cut) => {
      const tables = tablesOf(carry, 'carry');
      if (cut === 5000) for (const [path, table] of tables) made.set(path, table);
      // a table of the positions (at least a byte each) kept in the same memory, a new view of it or itself; not the last
      // critical path, a result handed out: new when the path's end moved (the metrics' tests below)
      else for (const [path, table] of tables) if (made.get(path) && made.get(path)!.byteLength >= 5000 && !path.endsWith('.chains.path') && made.get(path)!.buffer !== table.buffer) copied.push(`${path} after ${cut}`);
    });
    assert.ok(made.size > 20, `the carry's tables are found (${made.size})`);
    assert.deepEqual(copied, []);
  });
});

describe('the index of a growing trace, from its carry', () => {
  /**
   * What an index says of its events: types, lanes, ids (and the positions an id names from each
   * event), receivers, each event's incoming links in order (a carried index numbers its new links
   * after the old ones: the analyses read the links per target), the links' and dropped links'
   * counts, parents, tool pairs, fingerprints, tool lanes.
   */
  const surface = (index: TraceIndex) => {
    const ids = Array.from({ length: index.size }, (_, i) => index.id(i));
    return {
      types: [...index.types],
      lanes: [...index.lanes].map(([agent, lane]) => [agent, [...lane]]),
      first: ids.map((id) => index.pos.get(id)),
      named: ids.map((id, v) => index.resolve(id, v)),
      repeated: index.hasRepeatedIds,
      receivers: ids.map((_, i) => index.receiver(i)),
      incoming: ids.map((_, v) => index.incoming[v].map((k) => index.links[k])),
      links: index.linkCount,
      dropped: index.dropped,
      handoffsName: index.handoffsName,
      parents: ids.map((_, v) => index.parentOf(v)),
      pairs: ids.map((_, v) => [index.resultOf(v), index.callOf(v)]),
      fingerprints: [...index.fingerprints],
      toolLanes: [...index.toolLanes].sort(),
    };
  };
  const record = (k: number, id: string, agent: string, more: Record<string, unknown> = {}) => JSON.stringify({ id, t: k, type: k % 3 === 0 ? 'tool_call' : k % 3 === 1 ? 'tool_result' : 'message', agent, tool: 'bash', content: `step ${k % 7}`, ...more });

  it('equals the index made whole of the same events: new lanes, ids repeated across the append, causes naming old events, edges written after their events', () => {
    const edge = fc.option(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 9 }), fc.constantFrom('causal', 'return', 'temporal', 'link')), { freq: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 4 }), fc.boolean(), edge), { minLength: 2, maxLength: 60 }), fc.integer({ min: 1, max: 79 }), (choices, cutAt) => {
        // an edge line after an event: between two ids read so far or to come (ids repeat), as an agent writes it after both events
        const lines = choices.flatMap(([idNo, agent, cause, e], k) => [
          record(k, `e${idNo}`, `a${agent}`, cause && k > 0 ? { causes: [`e${choices[k - 1][0]}`], to: `a${(agent + 1) % 6}` } : {}),
          ...(e ? [JSON.stringify({ edge: { src: `e${e[0]}`, dst: `e${e[1]}`, type: e[2] } })] : []),
        ]);
        const cut = Math.min(cutAt, lines.length - 1);
        const carry = new PrefixCarry();
        const before = new TraceIndex(loadTrace(lines.slice(0, cut).join('\n'), 'run.otrace.jsonl'), carry);
        before.free();
        carry.commit(before.size, before.memo, before.toolLanes, before.ownWordsTask);
        const loaded = loadTrace(lines.join('\n'), 'run.otrace.jsonl');
        const grown = new TraceIndex(loaded, carry);
        const whole = new TraceIndex(loaded);
        assert.deepEqual(surface(grown), surface(whole));
        grown.free();
        whole.free();
      }),
      { seed: 30, numRuns: 600 },
    );
  });
  it("lays each lane's new positions after its old ones while the lane has room, and every lane out again when one is full or a new one comes", () => {
    const message = (k: number, agent: string) => JSON.stringify({ id: `m${k}`, t: k, type: 'message', agent, content: `step ${k}` });
    const lines = [...Array.from({ length: 80 }, (_, k) => message(k, ['a', 'b', 'c'][k % 3])), message(80, 'd'), message(81, 'a')];
    const lanesOf = (index: TraceIndex) => [...index.lanes].map(([agent, lane]) => [agent, [...lane]]);
    const carry = new PrefixCarry();
    let last: unknown;
    const laidOn: boolean[] = [];
    for (const cut of [9, 12, 15, 80, 81, 82]) {
      const loaded = loadTrace(lines.slice(0, cut).join('\n'), 'run.otrace.jsonl');
      const grown = new TraceIndex(loaded, carry);
      const whole = new TraceIndex(loaded);
      assert.deepEqual(lanesOf(grown), lanesOf(whole), `lanes after ${cut} events`);
      grown.free();
      whole.free();
      carry.commit(grown.size, grown.memo, grown.toolLanes, grown.ownWordsTask);
      laidOn.push(carry.index?.lanes === last);
      last = carry.index?.lanes;
    }
    // a lane of 3 to 5 positions has room for 16 more: 1 and 1 more fit; 21 or 22 more do not; a new lane; then room again
    assert.deepEqual(laidOn, [false, true, true, false, false, true]);
  });
  /** The index of `before` then `after` appended, made from its carry, and the index made whole; `how` its links were made. */
  const grownAndWhole = (before: object[], after: object[]) => {
    const text = (records: object[]) => records.map((r) => JSON.stringify(r)).join('\n');
    const carry = new PrefixCarry();
    const first = new TraceIndex(loadTrace(text(before), 'run.otrace.jsonl'), carry);
    first.free();
    carry.commit(first.size, first.memo, first.toolLanes, first.ownWordsTask);
    const loaded = loadTrace(text([...before, ...after]), 'run.otrace.jsonl');
    const grown = new TraceIndex(loaded, carry);
    const whole = new TraceIndex(loaded);
    const out = { grown: surface(grown), whole: surface(whole), links: grown.linksMade };
    grown.free();
    whole.free();
    return out;
  };
  const call = (k: number, id: string, more: object = {}) => ({ id, t: k, type: 'tool_call', agent: 'w', tool: 'bash', content: `make ${k}`, ...more });
  const result = (k: number, id: string, more: object = {}) => ({ id, t: k, type: 'tool_result', agent: 'w', tool: 'bash', content: `ok ${k}`, ...more });

  it('carries the old events\' links and links the new ones to what the old left open: an edge to an event not read yet, a hand-off to a lane\'s next event, an unanswered call', () => {
    const before = [
      { id: 'd0', t: 0, type: 'delegate', agent: 'boss', to: 'w', content: 'build it' },
      call(1, 'c1'),
      result(2, 'r1'),
      call(3, 'c2'),
      { edge: { src: 'c2', dst: 'r2', type: 'causal' } },
      { id: 'd4', t: 4, type: 'delegate', agent: 'w', to: 'boss', content: 'report' },
    ];
    const after = [result(5, 'r2'), { id: 'b6', t: 6, type: 'message', agent: 'boss', content: 'thanks' }, call(7, 'c3'), result(8, 'r3')];
    const { grown, whole, links } = grownAndWhole(before, after);
    assert.equal(links.how, 'appended', links.reason);
    assert.deepEqual(grown, whole);
    assert.ok(grown.incoming[6].some((l) => l.u === 4 && l.kind === 'delivery'), 'the old report is delivered to the boss\'s next event');
    assert.ok(grown.incoming[5].some((l) => l.u === 3 && l.kind === 'edge'), 'the old edge reaches the new result');
  });

  it('makes the links whole when a new result is stated to answer an old call an old result was paired with by a guess', () => {
    // r1 names no call: paired with c1 by a guess; the new r2 names c1, which a whole build pairs first (r1 then goes to c2)
    const { grown, whole, links } = grownAndWhole([call(0, 'c1'), call(1, 'c2'), result(2, 'r1')], [result(3, 'r2', { parent: 'c1' })]);
    assert.equal(links.how, 'whole');
    assert.match(links.reason, /guess/);
    assert.deepEqual(grown, whole);
    assert.deepEqual(whole.pairs.slice(0, 4), [[3, -1], [2, -1], [-1, 1], [-1, 0]]);
  });

  it('makes the links whole when a new event carries an old event\'s id (a result stated to answer a call again is no longer read so)', () => {
    const before = [call(0, 'c'), result(1, 'r1', { parent: 'c' }), result(2, 'r2', { parent: 'c' })];
    const { grown, whole, links } = grownAndWhole(before, [{ id: 'c', t: 3, type: 'message', agent: 'w', content: 'c again' }]);
    assert.equal(links.how, 'whole');
    assert.match(links.reason, /id/);
    assert.deepEqual(grown, whole);
    assert.deepEqual(whole.pairs.slice(0, 3), [[1, -1], [-1, 0], [-1, -1]], 'r2 is no later answer of a call whose id repeats');
  });

  it('mends the row of an old event a new edge ends at: the edge first, the link of a later pass from the same event taken, an implicit link gone', () => {
    const before = [call(0, 'c1'), result(1, 'r1'), { id: 'm2', t: 2, type: 'message', agent: 'w', to: 'reviewer', content: 'please review' }, { id: 'v3', t: 3, type: 'message', agent: 'reviewer', content: 'on it' }];
    // c1 -> m2 adds a link to m2's row; r1 -> m2 takes its lane link; c1 -> r1 takes the guessed pair's link; m2 -> v3 takes v3's delivery, and the edge to v3 from c1 ends its implicit link
    for (const [src, dst] of [['c1', 'm2'], ['r1', 'm2'], ['c1', 'r1'], ['m2', 'v3'], ['c1', 'v3']]) {
      const edge = grownAndWhole(before, [{ edge: { src, dst, type: 'causal' } }, call(4, 'c4')]);
      assert.deepEqual([edge.links.how, edge.grown], ['appended', edge.whole], `${src} -> ${dst}`);
      assert.match(edge.links.reason, /1 new edges end at old events/);
    }
    // the same edge written again adds nothing
    const again = grownAndWhole([...before, { edge: { src: 'c1', dst: 'm2', type: 'causal' } }], [{ edge: { src: 'c1', dst: 'm2', type: 'temporal' } }, call(4, 'c4')]);
    assert.deepEqual([again.links.how, again.grown], ['appended', again.whole]);
    // an edge back in time is dropped, as a whole build drops it
    const back = grownAndWhole(before, [{ edge: { src: 'r1', dst: 'c1', type: 'causal' } }, call(4, 'c4')]);
    assert.deepEqual([back.links.how, back.grown, back.grown.dropped], ['appended', back.whole, 1]);
    // b answers a and c answers b implicitly (another agent's event before them); c's lane link is from a
    const turns = [{ id: 'a', t: 0, type: 'message', agent: 'x', content: 'a' }, { id: 'b', t: 1, type: 'message', agent: 'y', content: 'b' }, { id: 'c', t: 2, type: 'message', agent: 'x', content: 'c' }];
    const d = { id: 'd', t: 3, type: 'message', agent: 'x', content: 'd' };
    const taken = grownAndWhole(turns, [{ edge: { src: 'a', dst: 'b', type: 'causal' } }, d]);
    assert.deepEqual([taken.grown, taken.grown.links], [taken.whole, 4], "the edge takes b's implicit link: a -> b, a -> c, b -> c, c -> d");
    const gone = grownAndWhole(turns, [{ edge: { src: 'a', dst: 'c', type: 'causal' } }, d]);
    assert.deepEqual([gone.grown, gone.grown.links], [gone.whole, 3], "the edge takes c's lane link, and c's implicit link goes: a -> b, a -> c, c -> d");
    const alone = grownAndWhole(turns, [{ edge: { src: 'a', dst: 'c', type: 'causal' } }]);
    assert.deepEqual([alone.links.how, alone.grown, alone.grown.links], ['appended', alone.whole, 2], 'an append of the edge alone: no new link to number the others after');
  });

  it('makes the links whole when a new edge states that another call answers an old result, or a new lane comes', () => {
    const before = [call(0, 'c1'), call(1, 'c2'), result(2, 'r1'), { id: 'm3', t: 3, type: 'message', agent: 'w', to: 'reviewer', content: 'please review' }];
    // r1 was c1's by a guess: an edge from c2 pairs it with c2 in a whole build
    const edge = grownAndWhole(before, [{ edge: { src: 'c2', dst: 'r1', type: 'return' } }, call(4, 'c4')]);
    assert.deepEqual([edge.links.how, edge.grown], ['whole', edge.whole]);
    assert.match(edge.links.reason, /c2 answers an old result \(r1\) paired otherwise/);
    assert.deepEqual(edge.whole.pairs.slice(0, 3), [[-1, -1], [2, -1], [-1, 1]]);
    const lane = grownAndWhole(before, [{ id: 'v4', t: 4, type: 'message', agent: 'reviewer', content: 'looks good' }]);
    assert.deepEqual([lane.links.how, lane.grown], ['whole', lane.whole]);
    assert.ok(lane.whole.incoming[4].some((l) => l.u === 3 && l.kind === 'delivery'), 'the old message is delivered to the new lane');
  });
});

describe('the metrics of a growing trace, from its carry', () => {
  /** Analyses each prefix of `records` (cut after each count of `cuts`) with one carry, as the follow does; each must equal a whole analysis. @returns where each metrics pass went on from. */
  const grow = (records: object[], cuts: number[]): number[] => {
    const from: number[] = [];
    analyseEachCut(records, cuts, (carry, loaded, analysis, cut) => {
      from.push(carry.metrics?.from ?? -1);
      assert.deepEqual(plain(analysis.metrics), plain(analyzeTrace(loaded).metrics), `metrics after ${cut} records`);
    });
    return from;
  };
  const ev = (id: string, t: number, type: string, agent: string, more: object = {}) => ({ id, t, type, agent, content: `${type} ${id}`, ...more });

  it('goes on past thousands of events from the last mark of the pass before it, and the critical path from where it meets the last one', () => {
    // three lanes that take turns, each event waiting for the one before it; a long call now and then moves the critical
    // path, and one just before a mark (8,192) ends the run until the last cut
    const duration = (k: number) => (k === 8191 ? 300 : k % 997 === 0 ? 30 : k % 7 === 0 ? 2 : 0.25);
    const records = Array.from({ length: 8600 }, (_, k) => ev(`e${k}`, k * 0.5, k % 5 === 0 ? 'tool_call' : 'message', ['a', 'b', 'c'][k % 3], { duration_s: duration(k) }));
    assert.deepEqual(grow(records, [5000, 8192, 8193, 8200, 8600]), [0, 5000, 8192, 8193, 8200]);
  });

  it("writes a critical path that goes on from the whole last one after it, in the same memory, and leaves every path handed out as it was", () => {
    // a's ten messages wait each for the one before: the path; b's long message waits for a's sixth (caused by it), so the
    // next path meets the last one in its middle and ends elsewhere; b's next message goes on from that whole path (b
    // speaks first: two agents from the start, or the metrics are made whole when the second comes)
    const records = [ev('hi', 0, 'message', 'b', { duration_s: 0.1 }), ...Array.from({ length: 10 }, (_, k) => ev(`e${k}`, k, 'message', 'a', { duration_s: 0.5 })), ev('b0', 10, 'message', 'b', { causes: ['e5'], duration_s: 100 }), ev('b1', 111, 'message', 'b', { duration_s: 1 }), ev('b2', 113, 'message', 'b', { duration_s: 1 })];
    const handedOut: { analysis: Analysis; whole: unknown; cut: number }[] = [];
    const memory: ArrayBufferLike[] = [];
    analyseEachCut(records, [11, 12, 13, 14], (carry, loaded, analysis, cut) => {
      // the path is read (made) only at the end, after every later append wrote its own
      handedOut.push({ analysis, whole: plain(analyzeTrace(loaded).metrics.critical_path_events), cut });
      memory.push(carry.metrics!.columns.chains!.path!.buffer);
    });
    assert.deepEqual(handedOut.map((h) => (h.whole as string[]).join(' ')), ['hi e0 e1 e2 e3 e4 e5 e6 e7 e8 e9', 'hi e0 e1 e2 e3 e4 e5 b0', 'hi e0 e1 e2 e3 e4 e5 b0 b1', 'hi e0 e1 e2 e3 e4 e5 b0 b1 b2']);
    assert.deepEqual(memory.map((m, k) => k > 0 && m === memory[k - 1]), [false, false, true, true], 'memory of its own where the path met the last one in its middle, the same where it went on from its end');
    for (const { analysis, whole, cut } of handedOut) assert.deepEqual(plain(analysis.metrics.critical_path_events), whole, `the path of ${cut} records, read after the later ones`);
  });

  it('goes on from the first new event, and from an old call a new result answers (its work changed)', () => {
    const records = [
      ev('d', 0, 'delegate', 'boss', { to: 'w', tokens: 10, duration_s: 0.5 }),
      ev('c1', 1, 'tool_call', 'w', { tool: 'bash', tokens: 5 }),
      ev('r1', 3, 'tool_result', 'w', { tool: 'bash' }),
      ev('c2', 4, 'tool_call', 'w', { tool: 'bash', tokens: 7 }),
      ev('m', 5, 'message', 'w', { to: 'boss', tokens: 3, duration_s: 1 }),
      ev('r2', 9, 'tool_result', 'w', { tool: 'bash' }),
      ev('a', 10, 'aggregate', 'boss', { duration_s: 2, cost: 0.25 }),
    ];
    // c2 waits for its result across the cut: its work (until r2) is known only after it
    assert.deepEqual(grow(records, [3, 5, 7]), [0, 3, 3]);
  });

  it('goes on from the first old event whose links changed when a new edge ends at it (its chain waits for another input now)', () => {
    const records = [
      ev('d', 0, 'delegate', 'boss', { to: 'w', duration_s: 0.5 }),
      ev('x', 1, 'message', 'w', { duration_s: 4 }),
      ev('y', 2, 'message', 'boss', { duration_s: 1 }),
      ev('z', 3, 'message', 'boss', { duration_s: 1 }),
      // y waited for x (it ends at 5): the critical path runs through x
      { edge: { src: 'x', dst: 'y', type: 'causal' } },
      ev('a', 8, 'aggregate', 'boss', { duration_s: 2 }),
    ];
    assert.deepEqual(grow(records, [4, 6]), [0, 2]);
  });

  it('makes the metrics whole when a lane of tool results speaks (a second agent: a message with no receiver is now a hand-off between agents)', () => {
    const records = [ev('u', 0, 'message', 'w', { duration_s: 1 }), ev('x', 1, 'tool_result', 'sandbox', { duration_s: 1 }), ev('y', 2, 'message', 'w', { duration_s: 1 }), ev('z', 3, 'message', 'sandbox', { duration_s: 1 })];
    assert.deepEqual(grow(records, [2, 3, 4]), [0, 2, 0]);
  });
});


describe('the credit per event of a growing trace, from its carry', () => {
  const ev = (id: string, t: number, type: string, agent: string, more: object = {}) => ({ id, t, type, agent, content: `${type} ${id}`, ...more });
  /** Analyses `records` cut after each of `cuts` with one carry; per cut the positions whose facts the credit read from the carry. */
  const grow = (records: object[], cuts: number[]): number[] => {
    const kept: number[] = [];
    analyseEachCut(
      records,
      cuts,
      (_carry, loaded, analysis, cut) => assert.deepEqual(plain(analysis.credit), plain(analyzeTrace(loaded).credit), `credit after ${cut} records`),
      (carry) => kept.push(carry.credit?.count === carry.count ? carry.count : 0),
    );
    return kept;
  };

  it('reads the old events\' facts from the carry: a given credit, rows no agent wrote, ids that come to repeat, injected rows that come later', () => {
    const records = [
      ev('d', 0, 'delegate', 'boss', { to: 'w' }),
      ev('c', 1, 'tool_call', 'w', { tool: 'bash', credit: 0.3 }),
      ev('u', 2, 'message', 'w', { from: 'user', content: 'go on' }),
      ev('r', 3, 'tool_result', 'w', { tool: 'bash' }),
      // from here ids repeat (an old one's again) and the harness's rows come
      ev('c', 4, 'tool_call', 'w', { tool: 'bash' }),
      ev('p', 5, 'tool_result', 'w', { tool: 'bash', kind: 'placeholder', content: '[no output]' }),
      ev('l', 6, 'message', 'boss', { kind: 'local_command', content: '/compact' }),
      ev('m', 7, 'message', 'w', { to: 'boss', content: 'done: 42' }),
      ev('s', 8, 'stop', 'boss', { reason: 'task_complete' }),
    ];
    assert.deepEqual(grow(records, [2, 4, 6, 9]), [0, 2, 4, 6]);
  });
});

describe("the credit's parents of a growing trace, from its carry", () => {
  const ev = (id: string, t: number, type: string, agent: string, more: object = {}) => ({ id, t, type, agent, content: `${type} ${id}`, ...more });
  /** Per cut: the positions whose parents the credit's pass carried from the last analysis (not gathered again); the credit equal to a whole analysis's. */
  const grow = (records: object[], cuts: number[]): number[] => {
    const carried: number[] = [];
    analyseEachCut(records, cuts, (carry, loaded, analysis, cut) => {
      assert.deepEqual(plain(analysis.credit), plain(analyzeTrace(loaded).credit), `credit after ${cut} records`);
      assert.equal(carry.transitions?.count, carry.count, 'the parents of every position are kept');
      carried.push(carry.transitions!.from);
    });
    return carried;
  };

  it('gathers the new positions alone while the links into the old ones are carried, the same figures to the last bit', () => {
    const records = [
      ev('d', 0, 'delegate', 'boss', { to: 'w', content: 'Find the population of Lyon in 2020' }),
      ev('c', 1, 'tool_call', 'w', { tool: 'search', content: 'Lyon population 2020' }),
      ev('r', 2, 'tool_result', 'w', { tool: 'search', content: 'Lyon had 522,250 inhabitants in 2020' }),
      ev('m', 3, 'message', 'w', { to: 'boss', content: 'Lyon: 522,250 (2020)' }),
      ev('c2', 4, 'tool_call', 'w', { tool: 'search', content: 'Lyon census' }),
      ev('r2', 5, 'tool_result', 'w', { tool: 'search', parent: 'c2', content: 'INSEE census 2020: 522,250' }),
      ev('a', 6, 'aggregate', 'boss', { content: 'FINAL ANSWER: 522,250' }),
      { id: 'rw', t: 7, type: 'reward', agent: 'boss', value: 1, target: 'a' },
    ];
    assert.deepEqual(grow(records, [2, 4, 6, 8]), [0, 2, 4, 6]);
  });

  it('gathers again from the first old position whose links changed when the links are made whole (a new edge ends at an old event, a new lane comes)', () => {
    // the edge a -> b comes after b: b's links change (its lane's link is now the edge), a's stand
    const records = [ev('a', 0, 'message', 'w', { content: 'Paris 2024' }), ev('b', 1, 'message', 'w', { content: 'Paris again' }), { edge: { src: 'a', dst: 'b', type: 'causal' } }, ev('c', 2, 'message', 'w', { content: 'done' })];
    assert.deepEqual(grow(records, [2, 4]), [0, 1]);
    // the edge a -> c comes after c: c gets a second link, a's and b's stand
    const more = [ev('a', 0, 'message', 'w', { content: 'Paris 2024' }), ev('b', 1, 'message', 'w', { content: 'Lyon' }), ev('c', 2, 'message', 'w', { content: 'Paris again' }), { edge: { src: 'a', dst: 'c', type: 'causal' } }, ev('d', 3, 'message', 'w', { content: 'done' })];
    assert.deepEqual(grow(more, [3, 5]), [0, 2]);
    // a new lane no old hand-off names: every old position's links stand
    const lane = [ev('a', 0, 'message', 'w', { content: 'Paris 2024' }), ev('b', 1, 'message', 'w', { content: 'Paris again' }), ev('c', 2, 'message', 'judge', { content: 'Paris: correct' })];
    assert.deepEqual(grow(lane, [1, 2, 3]), [0, 1, 2]);
  });

  it('gathers them all again when an old hand-off comes to name a new lane (its receiver changes)', () => {
    const named = [ev('a', 0, 'message', 'w', { to: 'judge', content: 'Paris 2024' }), ev('b', 1, 'message', 'w', { content: 'Paris again' }), ev('c', 2, 'message', 'judge', { content: 'Paris: correct' })];
    assert.deepEqual(grow(named, [1, 2, 3]), [0, 1, 0]);
  });
});

describe('the credit the rewards gave, of a growing trace', () => {
  it('is kept from one append to the next while the rewards and the parents they reach are the same, and summed again when a reward comes, from the blocks of rewards that stand (the others passed back again: a reward came to the block, a target appeared, an old event\'s links changed; random traces, random cuts); the credit per event mends the last one\'s values where they changed', () => {
    const made = { kept: 0, again: 0, blocksKept: 0, mended: 0 };
    /** The blocks' passes the last analysis kept. */
    let passes = new Set<object>();
    const names = ['Paris', 'Lyon', '522,250', '2020', 'Nice', '42'];
    const record = fc.record({
      type: fc.constantFrom('message', 'message', 'tool_call', 'tool_result', 'reward', 'edge'),
      agent: fc.constantFrom('a', 'b', 'judge'),
      to: fc.option(fc.constantFrom('a', 'b', 'c'), { freq: 3 }),
      words: fc.array(fc.constantFrom(...names), { maxLength: 3 }),
      value: fc.constantFrom(0, 0.25, 1),
      channel: fc.constantFrom('team', 'step'),
      // a reward's target, an edge's ends: events by number, earlier or later (a target that appears later moves its seed)
      target: fc.option(fc.nat(40), { freq: 2 }),
      src: fc.nat(40),
      // a row the harness injected: no credit once the trace holds one (every value shown again)
      injected: fc.integer({ min: 0, max: 24 }).map((k) => k === 0),
    });
    fc.assert(
      fc.property(fc.array(record, { minLength: 4, maxLength: 40 }), fc.array(fc.nat(40), { minLength: 1, maxLength: 6 }), (specs, cutsAt) => {
        const records = specs.map((r, k) => {
          if (r.type === 'edge') return { edge: { src: `e${r.src}`, dst: `e${Math.max(0, k - 1 - (r.src % 3))}`, type: 'causal' } };
          if (r.type === 'reward') return { id: `e${k}`, t: k, type: 'reward', agent: r.agent, value: r.value, channel: r.channel, ...(r.target === null ? {} : { target: `e${r.target}` }) };
          return { id: `e${k}`, t: k, type: r.type, agent: r.agent, tool: 'search', content: `${r.type} ${r.words.join(' ')}`, ...(r.to === null ? {} : { to: r.to }), ...(r.injected ? { kind: 'local_command' } : {}) };
        });
        const cuts = [...new Set(cutsAt.map((c) => Math.min(records.length, c + 1)))].sort((x, y) => x - y);
        analyseEachCut(records, [...cuts, records.length], (carry, loaded, analysis, cut) => {
          assert.deepEqual(plain(analysis.credit), plain(analyzeTrace(loaded).credit), `credit after ${cut} records`);
          const kept = carry.rewardCredit;
          if (kept) made[kept.madeAt < carry.count ? 'kept' : 'again']++;
          // summed again with some blocks' passes kept from the last analysis (a reward came: its block alone passed back)
          if (kept && kept.madeAt === carry.count && kept.passes.some((pass) => passes.has(pass))) made.blocksKept++;
          passes = new Set(kept?.passes);
          if (carry.creditSums?.whole === false) made.mended++;
        });
      }),
      { seed: 37, numRuns: 300 },
    );
    assert.ok(made.kept > 20 && made.again > 20, `the rewards' values were kept ${made.kept} times and passed back again ${made.again} times`);
    assert.ok(made.blocksKept > 20, `the rewards' values were summed again from some blocks kept ${made.blocksKept} times`);
    assert.ok(made.mended > 50, `the credit per event mended ${made.mended} times`);
  });
});

describe('the credit per event of a growing trace, when a reward comes', () => {
  it("mends the values the rewards changed where the outcome's mass never reaches (a new reward moves its channel's mean: every reward's share changes), and the new values equal a whole analysis's", () => {
    // a long chain: the outcome's mass, halved at each step back, is gone 60 steps before the end; the rewards' seeds are early
    const records: object[] = Array.from({ length: 300 }, (_, k) => ({ id: `e${k}`, t: k, type: 'message', agent: k % 2 ? 'b' : 'a', content: `step ${k}`, ...(k > 0 ? { causes: [`e${k - 1}`] } : {}) }));
    const reward = (k: number, value: number, target: number) => ({ id: `r${k}`, t: 300 + k, type: 'reward', agent: 'judge', value, channel: 'step', target: `e${target}` });
    records.push(reward(0, 1, 5), reward(1, 0, 10), { id: 'm', t: 302, type: 'message', agent: 'a', content: 'done' }, reward(3, 0.9, 20), reward(4, 0.2, 40));
    let mended = 0;
    let early: number[] = [];
    analyseEachCut(records, [302, 303, 304, 305], (carry, loaded, analysis, cut) => {
      assert.deepEqual(plain(analysis.credit), plain(analyzeTrace(loaded).credit), `credit after ${cut} records`);
      if (carry.creditSums?.whole === false) mended++;
      const now = analysis.credit.by_index.slice(0, 40);
      if (cut > 303) assert.notDeepEqual(now, early, `the early values changed after ${cut} records`);
      early = now;
    });
    assert.ok(mended >= 2, `mended ${mended} times`);
  });

  it('mends the values a reward gave before its seed moved to its target (the event carrying the target came in the append): they are its no more', () => {
    const message = (k: number) => ({ id: `e${k}`, t: k, type: 'message', agent: k % 2 ? 'b' : 'a', content: `step ${k}`, ...(k > 0 ? { causes: [`e${k - 1}`] } : {}) });
    const records: object[] = Array.from({ length: 300 }, (_, k) => message(k));
    // the second reward names a target no event carries yet: its seed is at itself, and it passes its mass to its cause, e8, and back from there;
    // the target comes 80 events later (mass passed back from there is gone before it reaches the reward)
    records.push({ id: 'r0', t: 300, type: 'reward', agent: 'judge', value: 1, channel: 'step', target: 'e5' });
    records.push({ id: 'r1', t: 301, type: 'reward', agent: 'judge', value: 0, channel: 'step', target: 'later', causes: ['e8'] });
    for (let k = 302; k < 382; k++) records.push(message(k));
    records.push({ id: 'later', t: 382, type: 'message', agent: 'a', content: 'the target' }, { id: 'm', t: 383, type: 'message', agent: 'b', content: 'done' });
    let mended = 0;
    const e8: number[] = [];
    analyseEachCut(records, [382, 383, 384], (carry, loaded, analysis, cut) => {
      assert.deepEqual(plain(analysis.credit), plain(analyzeTrace(loaded).credit), `credit after ${cut} records`);
      if (carry.creditSums?.whole === false) mended++;
      e8.push(analysis.credit.by_index[8]);
    });
    assert.ok(e8[0] !== 0 && e8[1] === 0, `e8's credit came from the reward's own seed, then from none: ${e8.join(', ')}`);
    assert.ok(mended >= 2, `mended ${mended} times`);
  });
});

describe('the blocks of rewards of a growing trace', () => {
  it('passes a block back again when a new edge ends at an old event its mass reaches (the parents there changed: at its latest seed or before), and keeps it when the edge ends past its seeds', () => {
    const message = (k: number, agent: string) => ({ id: `e${k}`, t: k, type: 'message', agent, content: `step ${k} Paris` });
    const rewards = [
      { id: 'r6', t: 6, type: 'reward', agent: 'judge', value: 1, channel: 'step', target: 'e5' },
      { id: 'r7', t: 7, type: 'reward', agent: 'judge', value: 0, channel: 'step', target: 'e3' },
    ];
    for (const [dst, stands] of [['e4', false], ['e5', false], ['e7', true]] as const) {
      const records = [...[0, 1, 2, 3, 4, 5].map((k) => message(k, k % 2 ? 'b' : 'a')), ...rewards, message(7, 'a'), { edge: { src: 'e0', dst, type: 'causal' } }, message(8, 'b')];
      let passes: readonly object[] = [];
      analyseEachCut(records, [9, 11], (carry, loaded, analysis, cut) => {
        assert.deepEqual(plain(analysis.credit), plain(analyzeTrace(loaded).credit), `credit after ${cut} records`);
        const now = carry.rewardCredit!.passes;
        if (cut === 11) assert.equal(now[0] === passes[0], stands, `the edge to ${dst}: the block's pass kept`);
        passes = now;
      });
    }
  });

  it('moves a seed to its target once an event carrying the target comes in a later append (the reward read before it)', () => {
    const message = (k: number) => ({ id: `e${k}`, t: k, type: 'message', agent: k % 2 ? 'b' : 'a', content: `step ${k} Paris` });
    const records = [message(0), message(1), { id: 'r2', t: 2, type: 'reward', agent: 'judge', value: 1, channel: 'step', target: 'e6' }, { id: 'r3', t: 3, type: 'reward', agent: 'judge', value: 0, channel: 'step', target: 'e0' }, message(4), message(5), message(6), message(7)];
    const seedsAt: number[][] = [];
    analyseEachCut(records, [5, 6, 8], (carry, loaded, analysis, cut) => {
      assert.deepEqual(plain(analysis.credit), plain(analyzeTrace(loaded).credit), `credit after ${cut} records`);
      seedsAt.push([...carry.rewardCredit!.plan.blocks[0].at]);
    });
    assert.deepEqual(seedsAt, [[2, 0], [2, 0], [6, 0]]);
  });
});

describe('the credit per event of a growing trace with rewards of trillions', () => {
  it('is summed whole at each append: sums of whole millionths that large no longer add exactly', () => {
    let mended = 0;
    for (let seed = 1; seed <= 12; seed++) {
      let x = seed;
      const random = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
      const records = Array.from({ length: 60 }, (_, k) =>
        k % 7 === 6
          ? { id: `e${k}`, t: k, type: 'reward', agent: 'judge', value: random() * 3e12, channel: 'step', target: `e${k - 1 - Math.floor(random() * 4)}` }
          : { id: `e${k}`, t: k, type: 'message', agent: ['a', 'b', 'c'][Math.floor(random() * 3)], content: `Paris ${Math.floor(random() * 5)} Lyon` },
      );
      analyseEachCut(records, [20, 30, 40, 45, 50, 55, 58, 60], (carry, loaded, analysis, cut) => {
        assert.deepEqual(plain(analysis.credit), plain(analyzeTrace(loaded).credit), `seed ${seed}: credit after ${cut} records`);
        if (carry.creditSums?.whole === false) mended++;
      });
    }
    assert.equal(mended, 0);
  });
});

describe('the hand-off cycles of a growing trace', () => {
  it('go on scanning from the run the last scan left open: the same ping-pongs and cycles as a whole scan, closed runs kept (random chats, random cuts)', () => {
    const agents = ['A', 'B', 'C', 'D'];
    const words = ['shall we go on', 'not yet', 'check the table again', 'the table is fine', 'what about the totals'];
    /** Reads of the scan that found it kept from the last analysis, with closed runs in it. */
    let carried = 0;
    fc.assert(
      fc.property(
        // each turn: who speaks next (mostly the one that keeps a cycle going: a round of 2 to 4 agents), and what
        fc.array(fc.record({ round: fc.integer({ min: 2, max: 4 }), stay: fc.nat(5), jump: fc.nat(3), say: fc.nat(words.length - 1), fresh: fc.nat(6) }), { minLength: 4, maxLength: 70 }),
        fc.array(fc.nat(12), { minLength: 1, maxLength: 8 }),
        (turns, cuts) => {
          const records: string[] = [];
          let speaker = 0;
          turns.forEach((turn, k) => {
            const next = turn.stay > 0 ? (speaker + 1) % turn.round : (speaker + 1 + turn.jump) % agents.length;
            // the same words a round later mostly (no new content), now and then a new sentence
            const content = turn.fresh === 0 ? `new finding ${k}` : words[(turn.say + k) % 2 === 0 ? 0 : 1];
            records.push(ev(k, k, 'message', agents[speaker], { to: agents[next], content }));
            speaker = next;
          });
          // every agent has a lane from the start (a new lane makes the hand-offs scanned again)
          const first = [header, ...agents.map((a, k) => ev(100 + k, -1, 'aggregate', a, { content: 'ready' }))];
          let at = Math.min(records.length, 1 + (cuts[0] ?? 0));
          const f = new Followed(lines([...first, ...records.slice(0, at)]));
          f.check('the first piece');
          for (const cut of cuts.slice(1)) {
            if (at >= records.length) break;
            const before = carryOf(f.follow)?.sweeps.get('handoffCycles') as { periods?: { closed: unknown[] }[] } | undefined;
            const to = Math.min(records.length, at + 1 + cut);
            f.append(lines(records.slice(at, to)));
            at = to;
            f.check(`turns up to ${at}`);
            const after = carryOf(f.follow)?.sweeps.get('handoffCycles');
            if (before && after === before && before.periods?.some((p) => p.closed.length > 0)) carried++;
          }
        },
      ),
      { numRuns: 300, seed: 62 },
    );
    assert.ok(carried > 50, `the scan went on from the last one's closed runs (${carried} times)`);
  });
});

describe('the repeated sequences of a growing trace', () => {
  it("go on scanning each lane from where the last scan stopped: the same repeated sequences as a whole scan, closed runs kept (random lanes, random cuts)", () => {
    const steps = ['run the build', 'error: build failed', 'read the log', 'edit main.c', 'run the tests'];
    /** Appends whose lane scans were the last analysis's, with closed runs in them. */
    let carried = 0;
    fc.assert(
      fc.property(
        // each event: its agent, and a step from a short block that repeats (period 1-3) or, now and then, a new one
        fc.array(fc.record({ agent: fc.nat(1), period: fc.integer({ min: 1, max: 3 }), fresh: fc.nat(8) }), { minLength: 4, maxLength: 80 }),
        fc.array(fc.nat(15), { minLength: 1, maxLength: 8 }),
        (events, cuts) => {
          const records = events.map((e, k) => ev(k, k, 'message', `worker_${e.agent}`, { content: e.fresh === 0 ? `new step ${k}` : steps[k % e.period] }));
          const first = [header, ev(100, -2, 'aggregate', 'worker_0', { content: 'ready' }), ev(101, -1, 'aggregate', 'worker_1', { content: 'ready' })];
          let at = Math.min(records.length, 1 + (cuts[0] ?? 0));
          const f = new Followed(lines([...first, ...records.slice(0, at)]));
          f.check('the first piece');
          for (const cut of cuts.slice(1)) {
            if (at >= records.length) break;
            const scans = (carryOf(f.follow)?.sweeps.get('laneRepeats') as { scans?: Map<string, { periods: { closed: unknown[] }[] }> } | undefined)?.scans;
            const before = scans && new Map(scans);
            const to = Math.min(records.length, at + 1 + cut);
            f.append(lines(records.slice(at, to)));
            at = to;
            f.check(`events up to ${at}`);
            const after = (carryOf(f.follow)?.sweeps.get('laneRepeats') as { scans?: Map<string, unknown> } | undefined)?.scans;
            if (before && after && [...before].some(([agent, scan]) => after.get(agent) === scan && scan.periods.some((p) => p?.closed.length > 0))) carried++;
          }
        },
      ),
      { numRuns: 300, seed: 62 },
    );
    assert.ok(carried > 50, `the lane scans went on from the last ones' closed runs (${carried} times)`);
  });
});

describe('the repeated tool calls of a growing trace', () => {
  it("keeps each group's loops while its calls and their results stand, and splits again a group whose old results moved", () => {
    const call = (k: number, more: Record<string, unknown> = {}) => ev(k, k, 'tool_call', 'w', { tool: 'bash', content: 'npm test', ...more });
    const result = (k: number) => ev(k, k, 'tool_result', 'w', { tool: 'bash', content: '3 failing' });
    const repeated = (a: Analysis) => a.loops.filter((l) => l.kind === 'repeated_tool_call').map((l) => l.events.join(' '));
    // e0 and e2 get the same result by a guess each: a repeated call
    const f = new Followed(lines([header, call(0), result(1), call(2), result(3), ev(4, 4, 'message', 'w', { content: 'trying again' })]));
    assert.deepEqual(repeated(f.check('a repeated call').analysis), ['e0 e1 e2 e3']);
    const splits = (carryOf(f.follow)?.toolCalls as unknown as { splits: { calls: number }[] }).splits;
    const group = splits[0];
    // another tool's call, then the same call again (its run grows): the group's split goes on (the same object)
    f.append(lines([ev(5, 5, 'tool_call', 'w', { tool: 'ls', content: 'ls' })]));
    assert.deepEqual([repeated(f.check('another call').analysis), f.follow.last.how, splits[0] === group], [['e0 e1 e2 e3'], 'appended', true]);
    f.append(lines([call(6), result(7)]));
    assert.deepEqual([repeated(f.check('a third call').analysis), f.follow.last.how, splits[0] === group, group.calls], [['e0 e1 e2 e3 e6 e7'], 'appended', true, 3]);
    // an edge states that e3 answers e0 (the links are made whole and the results paired again): the runs are split again
    f.append(lines([JSON.stringify({ edge: { src: 'e0', dst: 'e3', type: 'return' } }), ev(8, 8, 'message', 'w', { content: 'hm' })]));
    assert.deepEqual(repeated(f.check('the results moved').analysis), ['e0 e2 e3 e7']);
  });
});

describe('the near-duplicate steps of a growing trace', () => {
  it("gives each group's loop again while the group is the same, and makes it again when it takes a step or a step of it joins an artifact produced again (random dialogues, random cuts)", () => {
    // a few steps an agent restates (nearly the same words), code it produces again, and new steps now and then
    const says = ['please review the parser change and report every failing case you find today', 'please review the parser change and report each failing case you found today', 'the parser change is reviewed and every failing case is reported in the notes'];
    const code = ['```\nfor (const item of basket.items) { subtotal += item.price * item.count; if (subtotal > account.limit) throw new RangeError(message); else receipt.lines.push(format(item)); }\n```', '```\nwhile (queue.length > 0) { const job = queue.shift(); results.set(job.id, await worker.run(job.input, options.timeout)); progress.report(results.size / total); }\n```'];
    /** Appends that gave a group's loop again (the same object), and that made one again after a step of it joined an artifact. */
    let given = 0;
    let remade = 0;
    fc.assert(
      fc.property(
        fc.array(fc.record({ agent: fc.nat(1), say: fc.nat(4), code: fc.nat(2) }), { minLength: 4, maxLength: 60 }),
        fc.array(fc.nat(3), { minLength: 1, maxLength: 12 }),
        (events, cuts) => {
          const records = events.map((e, k) => ev(k, k, 'message', `agent_${e.agent}`, { to: `agent_${1 - e.agent}`, content: `${e.say < says.length ? says[e.say] : `a new step ${k} about something else entirely, with words never said before here`}${e.code < code.length ? `\n${code[e.code]}` : ''}` }));
          let at = Math.min(records.length, 1 + (cuts[0] ?? 0));
          const f = new Followed(lines([header, ...records.slice(0, at)]));
          f.check('the first piece');
          for (const cut of cuts.slice(1)) {
            if (at >= records.length) break;
            const scan = carryOf(f.follow)?.steps?.scan as unknown as { madeGroups: Map<number, { size: number; loop?: object }>; inArtifact: Set<number>; parent: Int32Array } | undefined;
            const before = scan && new Map([...scan.madeGroups].map(([root, made]) => [root, { ...made }]));
            const inArtifact = scan && new Set(scan.inArtifact);
            const to = Math.min(records.length, at + 1 + cut);
            f.append(lines(records.slice(at, to)));
            at = to;
            f.check(`events up to ${at}`);
            const after = carryOf(f.follow)?.steps?.scan as unknown as typeof scan;
            if (!before || after !== scan || !scan) continue;
            if ([...before].some(([root, made]) => made.loop && scan.madeGroups.get(root)?.loop === made.loop)) given++;
            // a group of the same steps, one of which joined an artifact: its loop was made again (it is one no longer when all did)
            const joined = [...scan.inArtifact].filter((i) => !inArtifact!.has(i) && scan.parent[i] !== -1 && i < scan.parent.length);
            if (joined.some((i) => { const made = before.get(scan.parent[i]); return made?.loop && made.size === scan.madeGroups.get(scan.parent[i])?.size; })) remade++;
          }
        },
      ),
      { numRuns: 300, seed: 64 },
    );
    assert.ok(given > 50, `the loops of groups that stood were given again (${given} times)`);
    assert.ok(remade > 5, `loops were made again once a step joined an artifact (${remade} times)`);
  });
});

describe('the hand-off tallies of a growing trace', () => {
  it("count on from the hand-offs counted before, and again from the first once a lane becomes a human's (its hand-offs no longer count)", () => {
    const say = (k: number, agent: string, to: string) => ev(k, k, 'message', agent, { to, content: `turn ${k}` });
    // b hands to the user, whose lane holds a tool result only: not a human's yet, the hand-off counts (a is the hub of 7 of 8)
    const first = [header, ev(0, 0, 'tool_result', 'user', { content: 'ok' }), say(1, 'b', 'user'), ...[['a', 'b'], ['b', 'a'], ['a', 'c'], ['c', 'a'], ['a', 'b'], ['b', 'a'], ['a', 'c']].map(([from, to], k) => say(2 + k, from, to))];
    const f = new Followed(lines(first));
    const hub = (what: string) => f.check(what).analysis.topology.evidence.find((e) => e.startsWith('hub'));
    assert.equal(hub('a hand-off to a lane of tool results'), 'hub a in 88% of hand-offs');
    f.append(lines([say(9, 'a', 'b')]));
    assert.equal(hub('one more'), 'hub a in 89% of hand-offs');
    // the user speaks: a human's lane now, its hand-offs out of the tallies
    f.append(lines([ev(10, 10, 'tool_result', 'user', { content: 'thanks' }), say(11, 'user', 'user')]));
    assert.equal(hub('a human now'), 'hub a in 100% of hand-offs');
  });
});
