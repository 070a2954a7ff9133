/**
 * KeyTable (src/trace/key-table.ts) answers as a Map whether it holds a few keys (a Map) or
 * thousands (an IdTable reading keys back from their values), and the reader's lane check (time
 * running backwards within a lane) warns alike with a few lanes and with thousands.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { KeyTable, SMALL } from '../../../src/trace/key-table';
import { readTraceJsonl } from '../../../src/trace/read';

test('KeyTable answers as a Map, below and past the size where it leaves its Map', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(3 * SMALL), fc.boolean()), { minLength: 1, maxLength: 3 * SMALL }), (ops) => {
      // values are keys' numbers: the key of a value is read back from it
      const keyOf = (v: number) => `k${v % 100_000}`;
      const table = new KeyTable(keyOf);
      const map = new Map<string, number>();
      for (const [k, set] of ops) {
        const key = `k${k}`;
        if (set) {
          const value = k + 100_000 * (map.has(key) ? 2 : 1);
          table.set(key, value);
          map.set(key, value);
        } else assert.equal(table.get(key), map.get(key));
        assert.equal(table.size, map.size);
      }
      for (const [key, value] of map) assert.equal(table.get(key), value);
      assert.equal(table.get('absent'), undefined);
    }),
    { seed: 30, numRuns: 40 },
  );
});

test('time running backwards is warned of in the same lanes with 3 agents and with 10,000 (in one trace and in two)', () => {
  for (const agents of [3, 10_000]) {
    for (const traces of [1, 2]) {
      const lines: string[] = [];
      // each agent's events at t = 10, then 5 (backwards) for every third agent, else 20
      for (let round = 0; round < 2; round++) {
        for (let a = 0; a < agents; a++) {
          const t = round === 0 ? 10 : a % 3 === 0 ? 5 : 20;
          lines.push(JSON.stringify({ id: `e${round}-${a}`, t, type: 'message', agent: `agent_${a}`, ...(traces === 2 ? { trace_id: `T${a % 2}` } : {}) }));
        }
      }
      const loaded = readTraceJsonl(`${lines.join('\n')}\n`);
      const backwards = loaded.problems.filter((p) => /time runs backwards/.test(p.message));
      assert.equal(backwards.length, Math.ceil(agents / 3), `${agents} agents, ${traces} traces`);
      assert.match(backwards[0].message, /^time runs backwards in lane "agent_0": t=5 s after t=10 s \(event "e0-0"\)/);
      assert.equal(backwards[0].range.start.line, agents, 'on the line of the event that went back');
    }
  }
});
