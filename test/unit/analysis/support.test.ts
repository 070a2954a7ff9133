/** The values a step states (src/analysis/support.ts), as the contrary-input blame reads them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ValueReader } from '../../../src/analysis/support';
import { TraceIndex } from '../../../src/analysis/trace-index';
import { traceOf } from './build';

test('a date or a clock time is no value: its parts ("01" of 01/01/2018) are never passed-on figures', () => {
  const index = new TraceIndex(traceOf([{ id: 'h1', type: 'message', agent: 'a', content: 'On 01/01/2018 at 10:05 the ticket cost 100 dollars; by 2018-03-15 it cost 120 dollars and 4.25 in fees.' }]));
  try {
    const values = new ValueReader(index).values(0).map((v) => v.value);
    assert.deepEqual(values, ['100', '120', '4.25']);
  } finally {
    index.free();
  }
});
