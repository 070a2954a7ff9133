/** A trace with no clock (a benchmark log whose t counts steps) is never shown in seconds it does not have. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { graphEvent, graphOverview } from '../../../src/engine/graph-window';
import { eventInfo } from '../../../src/engine/queries';
import { makeSnapshot } from '../../../src/engine/snapshot';
import { loadTrace } from '../../../src/trace/formats';
import { readTraceJsonl } from '../../../src/trace/read';
import '../../../src/trace/importers';
import { fixturePath } from '../helpers';

test('a Who&When log counts steps: the overview says so, details say "step", the hover "step"; a clocked trace keeps seconds', () => {
  const dir = fixturePath('who-and-when');
  const file = fs.readdirSync(dir, { recursive: true }).map(String).find((f) => f.endsWith('.json'))!;
  const full = path.join(dir, file);
  const s = makeSnapshot('ww', 1, full, loadTrace(fs.readFileSync(full, 'utf8'), full));
  assert.equal(graphOverview(s, 'ww').timeUnit, 'steps');
  const fields = graphEvent(s, 1)!.fields;
  assert.ok(fields.some(([k]) => k === 'step') && !fields.some(([k]) => k === 't'), JSON.stringify(fields));
  assert.equal(eventInfo(s, 1)!.countsSteps, true);
  const clocked = makeSnapshot('c', 1, 'c.otrace.jsonl', readTraceJsonl('{"id":"a","t":0,"type":"message","agent":"x","content":"hi"}\n{"id":"b","t":2.5,"type":"message","agent":"y","content":"ok"}'));
  assert.equal(graphOverview(clocked, 'c').timeUnit, undefined);
  assert.deepEqual(graphEvent(clocked, 1)!.fields.find(([k]) => k === 't'), ['t', '2.5 s']);
  assert.equal(eventInfo(clocked, 1)!.countsSteps, undefined);
});

test("a time from a minute on reads as the player's clock says it, the recorded seconds beside it", () => {
  const s = makeSnapshot('m', 1, 'm.otrace.jsonl', readTraceJsonl('{"id":"a","t":1.5,"type":"message","agent":"x","content":"hi"}\n{"id":"b","t":2507.93,"type":"message","agent":"y","content":"ok"}\n{"id":"c","t":1733500000,"type":"message","agent":"y","content":"an epoch time"}'));
  const t = (i: number) => graphEvent(s, i)!.fields.find(([k]) => k === 't')?.[1];
  assert.equal(t(0), '1.5 s');
  assert.equal(t(1), '41 min 48 s (2507.93 s)');
  assert.equal(t(2), '1733500000 s', 'a clock time, not a span of days');
});
