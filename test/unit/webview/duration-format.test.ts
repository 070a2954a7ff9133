/** The time axis's labels (webview/axis.ts): durations as people read them, rounded before they are split. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDuration, formatLength, formatTick } from '../../../webview/axis';

test('durations are rounded before they are split into minutes and seconds, or hours and minutes: never "1 min 60 s"', () => {
  assert.equal(formatDuration(119.6), '2 min');
  assert.equal(formatDuration(59.96), '60 s');
  assert.equal(formatDuration(61.2), '1 min 1 s');
  assert.equal(formatDuration(3599.7), '1 h');
  assert.equal(formatDuration(7170), '2 h');
  assert.equal(formatDuration(3600 + 25 * 60), '1 h 25 min');
  assert.equal(formatDuration(0.85), '850 ms');
  assert.equal(formatDuration(12.54), '12.5 s');
});

test('an event\'s length in its tooltip carries its unit: seconds, or steps when the trace counts steps', () => {
  assert.equal(formatLength(2.5, undefined), '2.5 s');
  assert.equal(formatLength(3, 'steps'), '3 steps');
  assert.equal(formatLength(1, 'steps'), '1 step');
});

test('ticks less than a second apart read differently: zoomed far in, eight ticks all read "17 min 51 s"', () => {
  const step = 0.05;
  const ticks = Array.from({ length: 8 }, (_, i) => formatTick(1071 + i * step, step));
  assert.equal(new Set(ticks).size, 8, ticks.join(' | '));
  assert.equal(ticks[1], '17 min 51.05 s');
  assert.equal(formatTick(59.9996, 0.001), '1 min 0.000 s', 'rounded before it is split');
  assert.equal(formatTick(12.5, 0.1), '12.5 s');
  assert.equal(formatTick(0.0125, 0.0005), '12.5 ms');
  assert.equal(formatTick(3725.5, 0.5), '1 h 2 min 5.5 s');
  assert.equal(formatTick(1071, 5), formatDuration(1071), 'a step of a second or more: as durations read');
});
