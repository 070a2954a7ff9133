/**
 * The loops a followed trace's analysis finished, kept for the next one (src/analysis/loops/finished-loops.ts):
 * a loop found again finishes as `finishLoop` would, from what was kept only while what it reads stands.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FinishedLoops } from '../../../../src/analysis/loops/finished-loops';
import { finishLoop, type RawLoop } from '../../../../src/analysis/loops/raw-loop';
import type { TraceIndex } from '../../../../src/analysis/trace-index';

/** An index of `n` events (what finishLoop reads of it: agents w, then v from the sixth), the call at 2 answered at 4 or not at all. */
function indexWith(answered: boolean, n = 5): TraceIndex {
  const events = Array.from({ length: n }, (_, t) => ({ id: `e${t}`, t: t * 1.1, agent: t < 5 ? 'w' : 'v', tokens: 10 + t, duration_s: 0.3 }));
  return {
    event: (i: number) => events[i],
    agentOf: (i: number) => events[i].agent,
    time: Float64Array.from(events, (e) => e.t),
    types: events.map(() => 'tool_call'),
    id: (i: number) => events[i].id,
    at: (i: number) => i,
    tokens: (i: number) => events[i].tokens,
    end: (i: number) => events[i].t + events[i].duration_s,
    resultOf: (i: number) => (answered && i === 2 ? 4 : -1),
  } as unknown as TraceIndex;
}

const raw = (): RawLoop => ({ kind: 'repeated_tool_call', members: [0, 1, 2, 3], repeated: [2, 3], period: 2, repetitions: 2, label: 'bash "make" called 2 times' });

describe('the loops a followed trace finished', () => {
  it('finishes a loop found again from the one kept, with where the last new content is read again', () => {
    const first = new FinishedLoops();
    const kept = new FinishedLoops().finish(indexWith(false), raw(), 9, first);
    const next = new FinishedLoops();
    const again = first.finish(indexWith(false), raw(), 2, next);
    assert.equal(next.reused, 1);
    assert.deepEqual(again, finishLoop(indexWith(false), raw(), 2));
    assert.equal(again.unresolved, true, 'no new content after its last member now');
    assert.equal(kept.unresolved, false);
  });

  it('finishes anew a loop whose repeated call a new event answered (its tokens and seconds take the result in)', () => {
    const first = new FinishedLoops();
    new FinishedLoops().finish(indexWith(false), raw(), 9, first);
    const next = new FinishedLoops();
    const answered = first.finish(indexWith(true), raw(), 9, next);
    assert.equal(next.reused, 0);
    assert.deepEqual(answered, finishLoop(indexWith(true), raw(), 9));
    assert.equal(answered.tokens, 12 + 13 + 14);
  });

  it('finishes a loop that grew from the one kept, its new members after the old: the same figures as finished whole', () => {
    const first = new FinishedLoops();
    new FinishedLoops().finish(indexWith(false, 9), raw(), 9, first);
    const grown = { ...raw(), members: [0, 1, 2, 3, 5, 6, 7, 8], repeated: [2, 3, 5, 6, 7, 8], repetitions: 4, label: 'bash "make" called 4 times' };
    const next = new FinishedLoops();
    const loop = first.finish(indexWith(false, 9), grown, 9, next);
    assert.equal(next.grown, 1);
    assert.deepEqual(loop, finishLoop(indexWith(false, 9), grown, 9));
    assert.deepEqual(loop.agents, ['w', 'v']);
    // a ping-pong's span grows: its tokens go on from the old span's end
    const pingPong = (to: number): RawLoop => ({ kind: 'ping_pong', members: to === 6 ? [1, 3, 4, 6] : [1, 3, 4, 6, 7, 8], repeated: [], span: [1, to], period: 2, repetitions: to === 6 ? 2 : 3, label: 'ping-pong' });
    const third = new FinishedLoops();
    next.finish(indexWith(false, 9), pingPong(6), 9, third);
    const fourth = new FinishedLoops();
    assert.deepEqual(third.finish(indexWith(false, 9), pingPong(8), 9, fourth), finishLoop(indexWith(false, 9), pingPong(8), 9));
    assert.equal(fourth.grown, 1);
  });

  it("keeps a grown loop's results of its new calls too: a later answer to one of them finishes it anew", () => {
    // the calls' results: the old part's call at 2 answered at 4 in every analysis; the new part's call at 6 answered only later
    const index = (sixAnswered: boolean): TraceIndex => ({ ...indexWith(true, 9), resultOf: (i: number) => (i === 2 ? 4 : sixAnswered && i === 6 ? 7 : -1) }) as unknown as TraceIndex;
    const first = new FinishedLoops();
    new FinishedLoops().finish(index(false), raw(), 9, first);
    const grown = { ...raw(), members: [0, 1, 2, 3, 5, 6, 8], repeated: [2, 3, 5, 6, 8], repetitions: 3, label: 'bash "make" called 3 times' };
    const second = new FinishedLoops();
    first.finish(index(false), grown, 9, second);
    assert.equal(second.grown, 1);
    // the same loop again: reused while no result changed, finished anew once the new call at 6 is answered
    const third = new FinishedLoops();
    assert.deepEqual(second.finish(index(false), grown, 9, third), finishLoop(index(false), grown, 9));
    assert.equal(third.reused, 1);
    const fourth = new FinishedLoops();
    assert.deepEqual(second.finish(index(true), grown, 9, fourth), finishLoop(index(true), grown, 9));
    assert.equal(fourth.reused + fourth.grown, 0, 'finished anew');
  });

  it('finishes anew a loop that grew with a member before its old last one', () => {
    const first = new FinishedLoops();
    new FinishedLoops().finish(indexWith(false, 9), { ...raw(), members: [0, 1, 2, 5], repeated: [2, 5] }, 9, first);
    const next = new FinishedLoops();
    const other = { ...raw(), members: [0, 1, 2, 5, 3, 8], repeated: [2, 5, 3, 8] };
    assert.deepEqual(first.finish(indexWith(false, 9), other, 9, next), finishLoop(indexWith(false, 9), other, 9));
    assert.equal(next.grown + next.reused, 0);
  });

  it('finishes anew a loop with other members', () => {
    const first = new FinishedLoops();
    new FinishedLoops().finish(indexWith(false), raw(), 9, first);
    const next = new FinishedLoops();
    const other = { ...raw(), members: [0, 1, 3, 4], repeated: [3, 4] };
    assert.deepEqual(first.finish(indexWith(false), other, 9, next), finishLoop(indexWith(false), other, 9));
    assert.equal(next.reused, 0);
  });
});
