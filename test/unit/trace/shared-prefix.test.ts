/**
 * What a growing read notes of the lists it hands out (src/trace/shared-prefix.ts): each new list of
 * events, edges and origins starts with the items of the one before it. The layout, the summary
 * and the analysis that follow appends take the note instead of comparing a million pointers, so a
 * note must never claim more than is true.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { LineOrigin, LineOrigins, type LoadedTrace } from '../../../src/trace/model';
import { isNotedCopy, NotedCopies, notedSharedPrefix, replacedFrom, samePrefix } from '../../../src/trace/shared-prefix';
import '../../../src/trace/importers';
import { choice, traceLines } from '../engine/random-appends';
import { FollowedFile } from './followed-file';

const DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'otrace-shared-prefix-'));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

/** How many leading items two lists really share (compared one by one). */
function trueShared<T>(list: ArrayLike<T>, before: ArrayLike<T>): number {
  const n = Math.min(list.length, before.length);
  for (let i = 0; i < n; i++) if (list[i] !== before[i]) return i;
  return n;
}

/** How many leading records two origin lists really share (line and file). */
function trueSharedRecords(list: LoadedTrace['eventOrigins'], before: LoadedTrace['eventOrigins']): number {
  const n = Math.min(list.length, before.length);
  for (let i = 0; i < n; i++) if (list.record(i) !== before.record(i) || list.get(i)?.file !== before.get(i)?.file) return i;
  return n;
}

describe('the lists a growing read hands out', () => {
  it('are noted as starting with the lists of the read before (events, edges, origins), also several reads back', () => {
    const header = JSON.stringify({ trace_id: 'p', task_id: 'p', system: 'test' });
    const ev = (k: number) => JSON.stringify({ id: `e${k}`, t: k, type: 'message', agent: k % 2 ? 'a' : 'b', to: k % 2 ? 'b' : 'a', content: `m${k}` });
    const edge = (k: number) => JSON.stringify({ edge: { src: `e${k - 1}`, dst: `e${k}`, type: 'causal' } });
    const f = new FollowedFile(DIR, `${[header, ev(0), ev(1), edge(1)].join('\n')}\n`);
    const loads = [f.load().loaded];
    for (let k = 2; k < 8; k += 2) {
      f.append(`${[ev(k), ev(k + 1), edge(k + 1)].join('\n')}\n`);
      loads.push(f.load().loaded);
    }
    for (let a = 0; a < loads.length; a++) {
      for (let b = a + 1; b < loads.length; b++) {
        const [was, now] = [loads[a], loads[b]];
        assert.notEqual(now.trace.events, was.trace.events, 'a new list per read');
        assert.equal(notedSharedPrefix(now.trace.events, was.trace.events, was.trace.events.length), was.trace.events.length, `events of read ${b} noted as starting with read ${a}'s`);
        assert.equal(notedSharedPrefix(now.trace.edges, was.trace.edges, was.trace.edges.length), was.trace.edges.length, `edges of read ${b} after read ${a}'s`);
        assert.equal(notedSharedPrefix(now.eventOrigins, was.eventOrigins, was.eventOrigins.length), was.eventOrigins.length, `origins of read ${b} after read ${a}'s`);
        assert.equal(trueShared(now.trace.events, was.trace.events), was.trace.events.length, 'and they are');
      }
    }
    // a list is never noted against one it was not made from
    assert.equal(notedSharedPrefix(loads[0].trace.events, loads[1].trace.events, 2), 0);
    // the followed analysis keeps a reader's copies as they are (the next read is noted against them), a copy of any other list
    assert.ok(loads.every((l) => isNotedCopy(l.trace.events) && isNotedCopy(l.trace.edges)), "a growing read's lists are the reader's copies");
    assert.equal(isNotedCopy(f.load().fresh.trace.events), false, "a whole read's list is the builder's own");
  });

  it('never claims more than the lists share (random traces, random cuts, a second trace whose events are named after they were handed out)', () => {
    fc.assert(
      fc.property(fc.array(choice, { minLength: 2, maxLength: 60 }), fc.array(fc.nat(12), { minLength: 1, maxLength: 6 }), fc.nat(80), (choices, pieces, second) => {
        const lines = traceLines(choices);
        // a second trace's fields line: the events after it name that trace when the read ends (read.ts `tagTrace`)
        if (second < lines.length) lines.splice(second + 1, 0, JSON.stringify({ trace_id: 'second', task_id: 'p', system: 'test' }));
        let line = 1;
        const f = new FollowedFile(DIR, `${lines.slice(0, line).join('\n')}\n`);
        const loads = [f.load().loaded];
        for (const piece of pieces) {
          const to = Math.min(lines.length, line + piece);
          if (to > line) f.append(`${lines.slice(line, to).join('\n')}\n`);
          line = to;
          loads.push(f.load().loaded);
        }
        for (let a = 0; a < loads.length; a++) {
          for (let b = a + 1; b < loads.length; b++) {
            const [was, now] = [loads[a], loads[b]];
            const n = was.trace.events.length;
            assert.ok(notedSharedPrefix(now.trace.events, was.trace.events, n) <= trueShared(now.trace.events, was.trace.events), 'events: no more than shared');
            assert.equal(samePrefix(now.trace.events, was.trace.events, n), trueShared(now.trace.events, was.trace.events) >= n && now.trace.events.length >= n);
            assert.ok(notedSharedPrefix(now.trace.edges, was.trace.edges, was.trace.edges.length) <= trueShared(now.trace.edges, was.trace.edges), 'edges: no more than shared');
            assert.ok(notedSharedPrefix(now.eventOrigins, was.eventOrigins, was.eventOrigins.length) <= trueSharedRecords(now.eventOrigins, was.eventOrigins), 'origins: no more than shared');
          }
        }
      }),
      { numRuns: Number(process.env.RUNS ?? 150), seed: Number(process.env.SEED ?? 7) },
    );
  });

  it('stop the note where an item was replaced in place, in the store or in a list handed out', () => {
    const [a, b, c, d, x] = [{ k: 'a' }, { k: 'b' }, { k: 'c' }, { k: 'd' }, { k: 'x' }];
    const store = [a, b, c];
    const copies = new NotedCopies();
    const first = store.slice();
    copies.made(first, first.length);
    store.push(d);
    const second = store.slice();
    copies.made(second, second.length);
    assert.equal(notedSharedPrefix(second, first, 3), 3);
    assert.ok(samePrefix(second, first, 3));
    // the list handed out first has an item replaced: the note of the next list made stops there
    first[1] = x;
    replacedFrom(first, 1);
    assert.equal(notedSharedPrefix(second, first, 3), 1);
    assert.equal(samePrefix(second, first, 3), false, 'compared after the note: b is not x');
    // the store replaces an item after a copy: the next copy's note stops there
    store[2] = x;
    copies.changed(2);
    const third = store.slice();
    copies.made(third, third.length);
    assert.equal(notedSharedPrefix(third, second, 4), 2);
    assert.equal(samePrefix(third, second, 4), false);
    assert.ok(samePrefix(third, second, 2));
    // a list the second one was made from, two notes back: the lowest note on the way
    assert.equal(notedSharedPrefix(third, first, 3), 1);
  });
});

describe('a copy of line origins', () => {
  const origin = (line: number) => new LineOrigin(line, 10 + line, 100 * line, 20 + line);

  it('reads what the store held when copied while the store and the copy each go on adding', () => {
    const store = new LineOrigins();
    for (let k = 0; k < 20; k++) store.add(origin(k));
    const copy = store.copy();
    for (let k = 20; k < 40; k++) store.add(origin(k)); // past the room of 32: new columns
    assert.equal(copy.length, 20);
    assert.equal(copy.record(20), undefined);
    assert.deepEqual(copy.get(19), store.get(19));
    assert.equal(notedSharedPrefix(store.copy(), copy, 20), 20);
    // added to, the copy takes columns of its own: the store's record 20 stays record 20
    copy.add(origin(1000));
    assert.equal(copy.record(20), 1000);
    assert.equal(store.record(20), 20);
    // and the store within its room leaves an earlier copy as it was
    const small = new LineOrigins();
    small.reserve(64);
    small.add(origin(1));
    const before = small.copy();
    small.add(origin(2));
    assert.equal(before.length, 1);
    assert.equal(before.record(1), undefined);
    before.add(origin(7));
    assert.equal(before.record(1), 7);
    assert.equal(small.record(1), 2, "the copy's record is written in its own columns");
  });
});
