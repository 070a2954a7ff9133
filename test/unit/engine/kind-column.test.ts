/**
 * The events' kind column (src/engine/kind-column.ts) and the open calls' integer table
 * (src/engine/lanes.ts NumberedOpenCalls) that the layout of a large trace reads instead of
 * string lookups and Map entries per event.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { KIND, kindCode, kindColumn, OTHER_KIND } from '../../../src/engine/kind-column';
import { NumberedOpenCalls } from '../../../src/engine/lanes';
import { canonicalType, EVENT_TYPES, type EventType, type TraceEvent } from '../../../src/trace/schema';

const event = (i: number, type: string): TraceEvent => ({ id: `e${i}`, t: i, type: type as EventType, agent: 'a' });

test('each event\'s kind code is its canonical type\'s index in EVENT_TYPES (aliases as their type; any other type, even an Object member name, is OTHER_KIND)', () => {
  const types = [...EVENT_TYPES, 'constructor', 'toString', '__proto__', 'hasOwnProperty', 'no_such_type', ''];
  const events = types.flatMap((t, i) => [event(2 * i, t), event(2 * i + 1, t)]);
  const column = kindColumn(events);
  assert.equal(column.length, events.length);
  events.forEach((e, i) => {
    const known = (EVENT_TYPES as readonly string[]).includes(e.type);
    assert.equal(column[i], known ? EVENT_TYPES.indexOf(canonicalType(e.type)) : OTHER_KIND, e.type);
  });
  assert.equal(kindCode('communicate'), kindCode('message'));
  assert.equal(kindCode('tool_use'), KIND.tool_call);
  assert.equal(EVENT_TYPES[KIND.stop], 'stop');
});

test('the kind column is made once per events array, and again when the array grew', () => {
  const events = [event(0, 'spawn'), event(1, 'stop')];
  const first = kindColumn(events);
  assert.equal(kindColumn(events), first);
  events.push(event(2, 'communicate'));
  const grown = kindColumn(events);
  assert.notEqual(grown, first);
  assert.deepEqual([...grown], [KIND.spawn, KIND.stop, KIND.message]);
});

test('the column of a grown trace\'s new events array (the old events the same objects, one replaced, others appended) equals a column made whole', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...EVENT_TYPES, 'other_type'), { minLength: 1, maxLength: 60 }), fc.array(fc.constantFrom(...EVENT_TYPES, 'other_type'), { maxLength: 20 }), fc.nat(), (old, added, replaced) => {
      const first = old.map((t, i) => event(i, t));
      kindColumn(first);
      // a read that appended one event (its column a longer view of the first's memory, with room), then the next read:
      // a new array, the old event objects, one of them completed anew (its type may differ), events appended
      const before = [...first, event(first.length, 'message')];
      const beforeColumn = [...kindColumn(before)];
      const after = before.slice();
      const at = replaced % before.length;
      after[at] = event(at, added[0] ?? 'stop');
      for (const t of added) after.push(event(after.length, t));
      const made = kindColumn(after);
      const whole = Uint8Array.from(after.map((e) => kindCode(e.type as EventType)));
      assert.deepEqual([...made], [...whole]);
      assert.deepEqual([...kindColumn(before)], beforeColumn, 'the column of the read before is as it was');
    }),
  );
});

test('open calls kept by number answer as a Map does, below and past the integer table\'s limit', () => {
  const op = fc.oneof(
    fc.record({ op: fc.constant('set' as const), key: fc.nat(200), call: fc.nat(1000) }),
    fc.record({ op: fc.constant('delete' as const), key: fc.nat(200) }),
    fc.record({ op: fc.constant('get' as const), key: fc.nat(200) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 300 }), fc.integer({ min: 1, max: 150 }), (ops, limit) => {
      const map = new Map<number, number>();
      const table = new NumberedOpenCalls(limit);
      for (const o of ops) {
        if (o.op === 'set') {
          map.set(o.key, o.call);
          table.set(o.key, o.call);
        } else if (o.op === 'delete') {
          map.delete(o.key);
          table.delete(o.key);
        } else assert.equal(table.get(o.key), map.get(o.key));
      }
      assert.deepEqual([...table.toMap()], [...map].sort((a, b) => a[0] - b[0]));
    }),
    { seed: 30, numRuns: 300 },
  );
});
