/** The diagnostics cap (src/engine/diagnostic-cap.ts): the first 1,000 per file and one summary of the rest. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capDiagnostics, MAX_DIAGNOSTICS } from '../../../src/engine/diagnostic-cap';
import type { Problem } from '../../../src/trace/model';

const problem = (line: number, severity: Problem['severity']): Problem => ({ severity, message: `p${line}`, range: { start: { line, character: 0 }, end: { line, character: 1 } } });

test('up to 1,000 problems are shown as they are, with no summary', () => {
  const list = Array.from({ length: MAX_DIAGNOSTICS }, (_, i) => problem(i, 'error'));
  const { shown, summary } = capDiagnostics(list, (p) => p);
  assert.equal(shown.length, 1000);
  assert.equal(summary, undefined);
});

test('past 1,000, the first 1,000 in their order and one summary at the first one left out, counted by severity, as severe as the worst', () => {
  const list = [...Array.from({ length: 1000 }, (_, i) => problem(i, 'info')), problem(1000, 'info'), ...Array.from({ length: 2499 }, (_, i) => problem(1001 + i, i % 2 ? 'warning' : 'error'))];
  const { shown, summary } = capDiagnostics(list, (p) => p);
  assert.deepStrictEqual(shown, list.slice(0, 1000));
  assert.ok(summary);
  assert.equal(summary.severity, 'error');
  assert.deepStrictEqual(summary.range, list[1000].range);
  assert.equal(summary.message, '2,500 more problems not shown (1,250 errors, 1,249 warnings, 1 info), from here on; the first 1,000 are listed. `otrace validate FILE` prints them all');
});
